// The public API of the bundled workloads: list them, create a model from
// (workload, preset, variant, overrides, backend, seed), run training steps under an Observer,
// list a step's ops without running it, and report the effective configuration.
// See kernels/README.md.
#pragma once

#include "kernels/backend.h"
#include "kernels/observer.h"
#include "kernels/runtime.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wt::kernels {

class Embedding;
class Block;
class SoftmaxLayer;
class Layer;
class TokenSource;

// A tunable size of a workload.
struct SizeKey {
    std::string key;       // override key, e.g. "hidden"
    std::string summary;   // one line
};

struct WorkloadInfo {
    std::string name;      // "gcn", "transformer"
    std::string summary;
    std::vector<SizeKey> sizes;
};

const std::vector<WorkloadInfo>& workloads();
const std::vector<std::string>& presets();            // paper, small, tiny
std::vector<std::string> variants();                  // softmax variants
std::string variantSummary(const std::string& variant);
std::string presetSummary(const std::string& preset);

// The effective configuration of a model (preset + overrides).
struct ModelConfig {
    std::string workload, preset, variant;
    int64_t vocab = 0, hidden = 0, layers = 0, batch = 0, seq = 0;
    int64_t kernel = 0;              // gcn: convolution width
    int64_t heads = 0, ffn = 0;      // transformer, bert, groupbert
    // bert, groupbert (kernel: the conv module's width)
    bool preNorm = false;            // norm=pre: layer norm at each module's input (else BERT's post-norm)
    double maskRate = 0.15;          // share of each sequence's tokens the MLM loss predicts
    double density = 1;              // bert: FFN weights block-sparse at this density (1: dense)
    int64_t block = 1;               // bert: sparse block size (1: unstructured)
    int64_t pruneEvery = 0;          // bert: prune + regrow every this many steps (0: never)
    double pruneFraction = 0.1;      // bert: share of each block row's blocks pruned per prune step
    bool sparseAttention = false;    // bert: the attention projections block-sparse too (density < 1)
    int64_t groups = 1;              // groupbert: groups of the grouped FFN
    int64_t convGroups = 0;          // groupbert: groups of the conv module's convolution (0: depthwise)
    bool mlm() const { return workload == "bert" || workload == "groupbert"; }
    // Masked positions per sequence: max(1, round(maskRate * seq)).
    int64_t maskedPerSeq() const;
    std::vector<int64_t> cutoffs;    // adaptive softmax cluster boundaries (ids), increasing
    double lr = 0;                   // SGD learning rate
    double momentum = 0;             // Nesterov momentum of the dense parameters (0: plain SGD)
    double clip = 0;                 // global gradient-norm clipping threshold (0: none)
    int64_t warmup = 0;              // steps of linear learning-rate warm-up (0: none)
    double zipf = 1.0;               // exponent of the synthetic token distribution
    std::string corpus;              // text file to train on instead of synthetic tokens
    uint64_t seed = 1;
    BackendKind backend = BackendKind::Cpu;
    std::string toJson() const;
};

// A size setting the runtime cannot run: outside its own bound, or a product of sizes that
// sizes a tensor would reach 2^31 elements. The value is well-formed, so the CLI reports it as
// an error (exit 1, one line), not as a usage mistake. The message names the setting and its
// limit: "batch=N is out of range: batch*seq*hidden must stay below 2^31 (N x 8 x 16)".
struct SizeError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// Throws std::invalid_argument with a one-line message for unknown names, unknown keys,
// malformed values and impossible sizes (SizeError for sizes out of range; every product
// checked without overflow). Does not allocate anything.
ModelConfig resolveConfig(const std::string& workload, const std::string& preset, const std::string& variant,
                          const std::vector<std::pair<std::string, std::string>>& overrides);
// Throws SizeError when a size of `config` is out of its range (resolveConfig's check;
// Model::create makes it too). `changed`: the keys the user set, in order; the message names
// the first of them that a failing product involves.
void checkSizes(const ModelConfig& config, const std::vector<std::string>& changed = {});
// "key=value" -> (key, value); std::invalid_argument when there is no '='.
std::pair<std::string, std::string> parseOverride(const std::string& text);

class Model {
public:
    // Throws std::invalid_argument (bad config; SizeError: checkSizes), DeviceError (CUDA backend unusable).
    // Allocates nothing: parameters are allocated by prepare() or the first step().
    static std::unique_ptr<Model> create(const ModelConfig& config);
    static std::unique_ptr<Model> create(const std::string& workload, const std::string& preset,
                                         const std::string& variant,
                                         const std::vector<std::pair<std::string, std::string>>& overrides,
                                         BackendKind backend = BackendKind::Cpu, uint64_t seed = 1);
    ~Model();

    const ModelConfig& config() const { return m_config; }
    std::string configJson() const { return m_config.toJson(); }
    std::string deviceName() const;

    // Allocates and initializes the parameters (unobserved). step() calls it when needed.
    void prepare();
    // One training step: forward, backward, SGD update; returns the mean loss of the step's
    // batch before the update. Synchronizes the device at the end.
    float step();
    int64_t stepsDone() const { return m_steps; }
    // Entropy (nats) of the training data's unigram distribution: the loss a model reaches by
    // learning word frequencies alone (the floor for the independent synthetic Zipf tokens).
    double unigramEntropy() const;
    void setObserver(Observer* observer);
    // The launches of the next step, without running them (no allocation, any preset).
    std::vector<OpInfo> listOps();

    // For tests and tools.
    Runtime& runtime() { return *m_rt; }
    std::vector<Layer*> layers();   // embedding, blocks, softmax
    // Replaces the token source (e.g. a fixed batch in tests).
    void setTokenSource(std::unique_ptr<TokenSource> source);

private:
    explicit Model(ModelConfig config);
    void nextBatch();
    void maskBatch();
    float runStep(Runtime& rt);

    ModelConfig m_config;
    std::unique_ptr<Runtime> m_rt;
    std::unique_ptr<Runtime> m_dryRt;
    std::unique_ptr<TokenSource> m_source;
    std::unique_ptr<Embedding> m_embedding;
    std::vector<std::unique_ptr<Block>> m_blocks;
    std::unique_ptr<SoftmaxLayer> m_softmax;
    std::vector<int32_t> m_inputs, m_targets;   // host copy of the next batch
    std::vector<int32_t> m_maskPos;             // MLM: masked token indices (targets are their words)
    uint64_t m_maskState = 0;                   // MLM: masking random stream
    bool m_batchReady = false;
    bool m_prepared = false;
    int64_t m_steps = 0;
    Buffer m_tokensDev, m_targetsDev, m_lossDev, m_normSqDev, m_maskPosDev;
};

}  // namespace wt::kernels
