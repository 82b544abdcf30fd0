// The calibrated predictor: per op kind (the op's name in its op scope, "sgemm_nt@conv_gemm";
// else the op's name, e.g. "glu_forward"; else its launch kind), a launch takes  overhead + ns_per_flop * FLOPs + ns_per_byte * bytes,
// i.e. a fixed cost plus the roofline terms divided by the op's efficiency at compute and at
// memory. The coefficients are fitted by least squares on relative error (weights 1/time),
// non-negative, from measured launches (op features joined with their times). Fitted models
// are stored in the file by name (storage/costmodelstore.h), as JSON.
//
// evaluate(): leave-one-run-out. Each measured run is held out in turn; the model is fitted on
// the rest and predicts it. Errors are mean absolute percentage errors (MAPE) of the per-layer
// time per step and of the whole step, against two baselines: the roofline of a device (the
// calibrated CPU) and FLOPs only (one global ns per FLOP fitted on the same training runs).
#pragma once

#include "analysis/costmodel.h"
#include "analysis/opfeatures.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wt {

struct CostClass {
    std::string key;              // "name@opscope", op name, "kind:<launch kind>", or "*"
    double overheadNs = 0;
    double nsPerFlop = 0;
    double nsPerByte = 0;
    int64_t samples = 0;
    double predictNs(double flops, double bytes) const { return overheadNs + nsPerFlop * flops + nsPerByte * bytes; }
};

// Fits one class to (flops, bytes, time ns) samples; nullopt when there are none.
std::optional<CostClass> fitCostClass(const std::string& key, const std::vector<double>& flops,
                                      const std::vector<double>& bytes, const std::vector<double>& timeNs);

class Predictor {
public:
    static constexpr int kMinSamples = 3;   // fewer: the class falls back to its launch kind

    std::string name;
    std::string device;           // the device its runs were measured on
    std::map<std::string, CostClass> classes;

    // Fits on every launch with a measured time. Throws std::invalid_argument when no run has
    // op features with measured times.
    static Predictor fit(const std::vector<RunSamples>& runs, const std::string& name);
    // The class that predicts a launch: its op name, its launch kind, or the global one.
    const CostClass* classFor(const LaunchSample& s) const;
    double predictNs(const LaunchSample& s) const;

    std::string toJson() const;
    // Parses what toJson wrote (analysis/jsonvalue.h); nullopt when it is not JSON, a field is
    // missing or of the wrong type, or there is no class; *error (when given) says which, in one line.
    static std::optional<Predictor> fromJson(const std::string& json, std::string* error = nullptr);
};

struct RunEvaluation {
    int64_t runId = 0;
    std::string name;
    double measuredStepNs = 0, modelStepNs = 0, rooflineStepNs = 0, flopsStepNs = 0;
    double layerMapeModel = 0, layerMapeRoofline = 0, layerMapeFlops = 0;   // percent
    int layers = 0;
};

struct Evaluation {
    std::vector<RunEvaluation> runs;
    bool hasRoofline = false;
    // Means over runs (step) and over every (run, layer) pair (layer), in percent.
    double stepMapeModel = 0, stepMapeRoofline = 0, stepMapeFlops = 0;
    double layerMapeModel = 0, layerMapeRoofline = 0, layerMapeFlops = 0;
};

// Needs at least two runs with features. `roofline`: the device for the roofline baseline.
Evaluation evaluate(const std::vector<RunSamples>& runs, const std::optional<DeviceSpec>& roofline);

}  // namespace wt
