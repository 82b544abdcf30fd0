// The calibrated predictor: per op kind (the op's name in its op scope, "sgemm_nt@conv_gemm";
// else the op's name, e.g. "glu_forward"; else its launch kind), a launch takes  overhead + ns_per_flop * FLOPs + ns_per_byte * bytes,
// i.e. a fixed cost plus the roofline terms divided by the op's efficiency at compute and at
// memory, plus an extra cost per byte beyond a core's cache. The coefficients are fitted by
// weighted least squares (weights 1 / time: large launches count more than tiny ones),
// non-negative, from measured launches (op features joined with their times; each launch's
// target is the median time of the identical launches of the training runs). Fitted models
// are stored in the file by name (storage/costmodelstore.h), as JSON.
//
// An op name never seen in the fit falls back on the cross-kind feature model (FeatureModel):
// per launch kind, time as a non-negative sum of the launch's features in the units of the
// device's calibration (launches x overhead, FLOPs / peak, bytes / bandwidth, rows of row
// kernels), so it carries to op kinds it was not fitted on and to other devices. Before it: a
// GEMM of an op scope without a class is priced by its shape (analysis/gemmefficiency.h), a kernel
// by the geometric mean of the feature model and its roofline class (analysis/rooflineclasses.h). A predictor
// remembers the calibration it was fitted with; rescaledTo() applies it on another device, every
// term scaled as the two calibrations' rates are (docs/prediction.md, "Across models").
//
// evaluate(): held out by run (leave-one-run-out), workload, preset or variant. Each group of
// measured runs is held out in turn; the model is fitted on the runs of the other groups and
// predicts the group's runs; the repeats of one configuration are held out together and measured
// as the median over their steps. Errors are mean absolute percentage errors (MAPE) of the per-layer
// time per step and of the whole step, against two baselines: the roofline of a device (the
// calibrated CPU) and FLOPs only (one global ns per FLOP fitted on the same training runs).
#pragma once

#include "analysis/costmodel.h"
#include "analysis/gemmefficiency.h"
#include "analysis/mlppredictor.h"
#include "analysis/opfeatures.h"
#include "analysis/rooflineclasses.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wt {

struct CostClass {
    // Bytes a launch touches beyond which its data no longer stay in a core's cache (the order
    // of one core's L2 on the development machine): those bytes cost nsPerByteOut more each.
    static constexpr double kCacheBytes = 1 << 20;
    std::string key;              // "name@opscope", op name, "kind:<launch kind>", or "*"
    double overheadNs = 0;
    double nsPerFlop = 0;
    double nsPerByte = 0;
    int64_t samples = 0;
    double nsPerByteOut = 0;      // extra per byte beyond kCacheBytes (after samples: aggregates
                                  // written before it keep their meaning)
    // The range of work (FLOPs + bytes) of the launches it was fitted on: a launch far outside it
    // (kReach times) is predicted by a wider class instead of an extrapolated fixed cost.
    double minWork = 0, maxWork = 0;
    static constexpr double kReach = 8;
    // Every launch it was fitted on ran as a scalar loop (isScalarLoop): its ns per FLOP scales
    // with the calibration's scalar-loop rate on another device, not with the fp32 peak.
    bool scalarLoop = false;
    bool covers(double work) const { return maxWork <= 0 || (work >= minWork / kReach && work <= maxWork * kReach); }
    double predictNs(double flops, double bytes) const
    {
        return overheadNs + nsPerFlop * flops + nsPerByte * bytes + nsPerByteOut * std::max(0.0, bytes - kCacheBytes);
    }
};

// Fits one class to (flops, bytes, time ns) samples; nullopt when there are none.
std::optional<CostClass> fitCostClass(const std::string& key, const std::vector<double>& flops,
                                      const std::vector<double>& bytes, const std::vector<double>& timeNs);

// The features of one launch that carry across op kinds, each in ns on a device (its
// calibration): what the cross-kind model weighs.
struct CrossFeatures {
    static constexpr int kCount = 4;
    double launchNs = 0;     // one launch: the device's fixed cost per op
    double computeNs = 0;    // FLOPs / fp32 peak
    double memoryNs = 0;     // bytes read + written / bandwidth (a copy: its bytes over the host link)
    double rowsNs = 0;       // rows of a row kernel (rows, T or M in its shapes) x kRowFlops / peak
    static constexpr double kRowFlops = 64;   // the nominal per-row work that scales rowsNs
    double operator[](int i) const { return i == 0 ? launchNs : i == 1 ? computeNs : i == 2 ? memoryNs : rowsNs; }
};
// The unit calibration (1 GFLOP/s, 1 GB/s, 1 us per launch): features of a predictor fitted
// without one are then FLOPs, bytes and launches in fixed units.
DeviceSpec nominalCalibration();
const DeviceSpec& nominalUnits();   // the same, made once
CrossFeatures crossFeatures(const LaunchSample& s, const DeviceSpec& calibration);
// The rows of a row kernel from its shapes text ("rows=16 cols=64", "T=16 C=16", "M=.."); 0: none.
double rowsOf(const LaunchSample& s);

// Per launch kind ("gemm", "kernel", "memcpy", "memset", and "*" for all), time = sum of
// weight_i x feature_i, weights non-negative (dimensionless: 1 / efficiency for compute and
// memory), fitted on relative error like a CostClass.
struct FeatureModel {
    struct Weights { std::array<double, CrossFeatures::kCount> w {}; int64_t samples = 0; };
    std::map<std::string, Weights> byKind;
    // The weights of the launch's kind when fitted on kMinSamples or more, else those of "*";
    // nullptr when there are none.
    const Weights* weightsFor(const std::string& kind) const;
    std::optional<double> predictNs(const LaunchSample& s, const DeviceSpec& calibration) const;
};

class Predictor {
public:
    static constexpr int kMinSamples = 3;   // fewer: the class falls back to the feature model

    std::string name;
    std::string device;           // the device its runs were measured on
    std::map<std::string, CostClass> classes;
    FeatureModel features;        // empty in predictors stored before it: then the kind classes
    // The calibration it was fitted with (the file's `wheretime calibrate`); none: nominal units.
    std::optional<DeviceSpec> calibration;
    // Set: the per-launch MLP predicts every launch (`--model mlp`); the classes are then empty.
    std::optional<MlpModel> mlp;
    // A GEMM whose op scope has no class covering it: its time from its shape (before the op
    // name's class, whose one line through every shape of the name missed other models' GEMMs).
    std::optional<GemmEfficiency> gemm;
    // A kernel whose op name has no class covering it: its roofline bound x its class's
    // efficiency (before the feature model). Empty in predictors stored before them.
    RooflineClasses kernelClasses;

    // Fits on every launch with a measured time, the features in the units of `calibration`.
    // Throws std::invalid_argument when no run has op features with measured times.
    static Predictor fit(const std::vector<RunSamples>& runs, const std::string& name,
                         const std::optional<DeviceSpec>& calibration = std::nullopt);
    // The MLP instead (analysis/mlppredictor.h), deterministic for a seed.
    static Predictor fitMlp(const std::vector<RunSamples>& runs, const std::string& name,
                            const std::optional<DeviceSpec>& calibration, uint64_t seed = 1,
                            int steps = MlpModel::kSteps);
    // The class of the launch's op name (in its op scope, else alone; a GEMM with a shape model:
    // its op scope only) whose range covers it, else (no feature model) its launch kind or the
    // global one; nullptr when a fallback (shape model, roofline class, feature model) predicts it.
    const CostClass* classFor(const LaunchSample& s) const;
    double predictNs(const LaunchSample& s) const;
    // The same model on another device: per-op fixed costs scaled by the ratio of the launch
    // overheads, ns per FLOP by the ratio of the peaks, ns per byte by the ratio of the
    // bandwidths; the feature model reads the new calibration. Unchanged without a calibration.
    Predictor rescaledTo(const DeviceSpec& target) const;

    std::string toJson() const;
    // Parses what toJson wrote (analysis/jsonvalue.h); nullopt when it is not JSON, a field is
    // missing or of the wrong type, or there is no class; *error (when given) says which, in one line.
    static std::optional<Predictor> fromJson(const std::string& json, std::string* error = nullptr);
};

// How evaluate() splits the runs: each run alone, or every run of one workload (bert with
// block-sparse weights apart from dense bert), one preset, one softmax variant.
enum class HoldOut { Run, Workload, Preset, Variant };
const char* holdOutName(HoldOut h);                          // "run", "workload", ...
std::optional<HoldOut> parseHoldOut(const std::string& text);
// The group of a run under a hold-out: "run 3", "gcn", "bert-blocksparse", "small", "full".
std::string holdOutGroup(const RunSamples& r, HoldOut h);

// Runs with one key are repeats of one configuration, which evaluate() holds out and compares
// as one: the backend, device, workload and configuration JSON of a capture (every size, the
// variant, the seed), else the repeat tag (`capture --repeat`); empty: a run of its own.
std::string configurationKey(const RunSamples& r);

// One held-out configuration: a run, or its repeats (configurationKey), the first one's id and
// name. Measured times are medians over the steps of every repeat (robust to a preempted
// step); predicted times are per step (the same for every step of identical launches).
struct RunEvaluation {
    int64_t runId = 0;
    std::string name;
    std::string group;            // its hold-out group
    int repeats = 1;              // runs pooled: the repeats of the configuration
    double measuredStepNs = 0, modelStepNs = 0, rooflineStepNs = 0, flopsStepNs = 0;
    double layerMapeModel = 0, layerMapeRoofline = 0, layerMapeFlops = 0;   // percent
    int layers = 0;
};

struct GroupEvaluation {
    std::string group;
    int runs = 0, layers = 0;     // layers: (run, layer) pairs
    double stepMapeModel = 0, stepMapeRoofline = 0, stepMapeFlops = 0;    // percent
    double layerMapeModel = 0, layerMapeRoofline = 0, layerMapeFlops = 0;
};

// One layer of one held-out run: the largest errors of the predictor.
struct LayerError {
    int64_t runId = 0;
    std::string runName, group, layer;
    double measuredNs = 0, modelNs = 0;   // per step
    double errorPct = 0;                  // signed: 100 (model - measured) / measured
    double stepShare = 0;                 // the layer's share of the measured step, 0..1
};

// One layer of one held-out run, predicted by the model fitted without its group: the times per
// step (ns) every error is made of (analysis/heldouterror.h aggregates them per layer name).
struct LayerPrediction {
    int64_t runId = 0;
    std::string group, layer;
    double measuredNs = 0, modelNs = 0, rooflineNs = 0, flopsNs = 0;
};

// One op name over every held-out run: where the step's error comes from (times per step
// summed over the held-out runs, ns), and how many of its launches no op-kind class covered
// (predicted by the cross-kind feature model; the MLP predicts every launch by features).
struct OpError {
    std::string name, kind;
    std::string group;            // the held-out group (EvaluationOptions::opsByGroup), else empty
    int64_t launches = 0, byFeatures = 0;
    double measuredNs = 0, modelNs = 0;
};

// Which predictor an evaluation fits: the per-op-kind regression (with the cross-kind feature
// model) or the per-launch MLP.
enum class PredictorKind { Regression, Mlp };
const char* predictorKindName(PredictorKind k);   // "regression", "mlp"
std::optional<PredictorKind> parsePredictorKind(const std::string& text);

struct EvaluationOptions {
    HoldOut holdOut = HoldOut::Run;
    PredictorKind model = PredictorKind::Regression;
    uint64_t seed = 1;                       // the MLP's
    int mlpSteps = MlpModel::kSteps;         // the MLP's Adam steps per fit
    std::optional<DeviceSpec> roofline;      // the roofline baseline's device
    std::optional<DeviceSpec> calibration;   // the measured device: the units of the fit's features
    size_t worstLayers = 10;
    size_t worstOps = 15;
    // The op table per (held-out group, op name): which workload's ops the error comes from.
    bool opsByGroup = false;
};

// The same evaluation against every run alone (each repeat's medians over its own steps, beside
// the pooled rows' medians over every repeat's steps), and the spread of the repeats: each run
// against the medians over its configuration's other repeats' steps (configurations with two or
// more repeats), the MAPE no predictor can get under against a single run. Percent.
struct PerRunErrors {
    int runs = 0, layers = 0;                 // runs and (run, layer) pairs compared
    double stepMapeModel = 0, stepMapeRoofline = 0, stepMapeFlops = 0;
    double layerMapeModel = 0, layerMapeRoofline = 0, layerMapeFlops = 0;
    int repeatRuns = 0, repeatLayers = 0;     // those with siblings
    double stepMapeRepeats = 0, layerMapeRepeats = 0;
};

struct Evaluation {
    HoldOut holdOut = HoldOut::Run;
    PredictorKind model = PredictorKind::Regression;
    std::vector<RunEvaluation> runs;
    std::vector<GroupEvaluation> groups;     // in order of first appearance
    std::vector<LayerError> worst;           // largest absolute error first
    std::vector<LayerPrediction> layers;     // every held-out (run, layer) pair, in run order
    std::vector<OpError> ops;                // largest absolute error (ns) first, worstOps of them
    double heldOutMeasuredNs = 0;            // per step, summed over the held-out runs (the ops' share)
    bool hasRoofline = false;
    // Means over runs (step) and over every (run, layer) pair (layer), in percent.
    double stepMapeModel = 0, stepMapeRoofline = 0, stepMapeFlops = 0;
    double layerMapeModel = 0, layerMapeRoofline = 0, layerMapeFlops = 0;
    PerRunErrors perRun;
};

// Needs at least two groups of runs with features (std::invalid_argument, one line, otherwise).
Evaluation evaluate(const std::vector<RunSamples>& runs, const EvaluationOptions& options);
// Leave-one-run-out; `roofline` is also the calibration.
Evaluation evaluate(const std::vector<RunSamples>& runs, const std::optional<DeviceSpec>& roofline);

}  // namespace wt
