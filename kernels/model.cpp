#include "kernels/model.h"

#include "kernels/bert.h"
#include "kernels/data.h"
#include "kernels/layers.h"
#include "kernels/opsmath.h"
#include "kernels/softmax.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

namespace wt::kernels {

namespace {

const char* kPresets[] = {"paper", "small", "tiny"};

std::string joinKeys(const std::vector<SizeKey>& keys)
{
    std::string s;
    for (const auto& k : keys)
        s += (s.empty() ? "" : ", ") + k.key;
    return s;
}

ModelConfig presetConfig(const std::string& workload, const std::string& preset)
{
    ModelConfig c;
    c.workload = workload;
    c.preset = preset;
    // SGD with Nesterov momentum 0.9 on gradients clipped to global norm 1: plain SGD learns the
    // word frequencies of a 10^4-10^5-way softmax far too slowly (the rare words' logits move by
    // lr * p per step), and a learning rate large enough to fix that diverges unclipped. The
    // studied models were trained the same way (NAG + norm clipping; docs/workloads.md).
    c.momentum = 0.9;
    c.clip = 1.0;
    if (workload == "gcn") {
        // GCN on WikiText-2 (vocabulary 33,278), 5 gated conv layers. Width, kernel width,
        // cutoffs and tokens per batch are our choice (docs in kernels/README.md).
        if (preset == "paper") {
            c.vocab = 33278; c.hidden = 512; c.layers = 5; c.kernel = 4; c.batch = 16; c.seq = 256;
            c.cutoffs = {10000, 20000}; c.lr = 0.5; c.warmup = 20;
        } else if (preset == "small") {
            c.vocab = 33278; c.hidden = 256; c.layers = 5; c.kernel = 4; c.batch = 8; c.seq = 128;
            c.cutoffs = {10000, 20000}; c.lr = 0.5; c.warmup = 20;
        } else {
            c.vocab = 64; c.hidden = 16; c.layers = 2; c.kernel = 3; c.batch = 2; c.seq = 8;
            c.cutoffs = {16, 32}; c.lr = 0.5; c.warmup = 20;
        }
    } else if (workload == "bert" || workload == "groupbert") {
        // BERT-Base (vocabulary 30,522 WordPiece, 12 layers, d 768, 12 heads, FFN 3072, seq 128;
        // Devlin et al.); GroupBERT at the same width and depth (Chelombiev et al.): FFN groups 4,
        // conv kernel 7, depthwise conv. Batch and the cutoffs of the adaptive variants are ours.
        // -Large: --set hidden=1024 --set layers=24 --set heads=16 --set ffn=4096.
        const bool g = workload == "groupbert";
        c.preNorm = g;
        c.groups = g ? 4 : 1;
        if (preset == "paper") {
            c.vocab = 30522; c.hidden = 768; c.layers = 12; c.heads = 12; c.ffn = 3072; c.batch = 32; c.seq = 128;
            c.cutoffs = {4000, 12000}; c.lr = 0.1; c.kernel = 7;
        } else if (preset == "small") {
            c.vocab = 30522; c.hidden = 256; c.layers = 4; c.heads = 4; c.ffn = 1024; c.batch = 8; c.seq = 128;
            c.cutoffs = {4000, 12000}; c.lr = 0.1; c.kernel = 7;
        } else {
            c.vocab = 64; c.hidden = 16; c.layers = 2; c.heads = 2; c.ffn = 32; c.batch = 4; c.seq = 16;
            c.cutoffs = {16, 32}; c.lr = 0.1; c.kernel = 3;
            c.groups = g ? 2 : 1;
        }
    } else {
        // Transformer on Google Billion Word (vocabulary 793,471), 24 layers, d 1024, 16 heads,
        // FFN 4096, cutoffs 60000,100000,640000 (the paper's); batch x seq is our choice.
        // At 10^5-10^6 words, momentum 0.95 and clipping at norm 5: with the full softmax the output
        // matrix dominates the gradient norm, so clipping at 1 scaled every step down, and the
        // Zipf tail's logits need the longer momentum (docs/workloads.md: 5.6% above the entropy
        // after 100 steps at small before, 4.8% now).
        if (preset == "paper") {
            c.vocab = 793471; c.hidden = 1024; c.layers = 24; c.heads = 16; c.ffn = 4096; c.batch = 4; c.seq = 512;
            c.cutoffs = {60000, 100000, 640000}; c.lr = 0.1; c.momentum = 0.95; c.clip = 5.0;
        } else if (preset == "small") {
            c.vocab = 100000; c.hidden = 256; c.layers = 4; c.heads = 4; c.ffn = 1024; c.batch = 4; c.seq = 128;
            c.cutoffs = {10000, 20000, 60000}; c.lr = 0.1; c.momentum = 0.95; c.clip = 5.0;
        } else {
            c.vocab = 64; c.hidden = 16; c.layers = 2; c.heads = 2; c.ffn = 32; c.batch = 2; c.seq = 8;
            c.cutoffs = {16, 32, 48}; c.lr = 0.1;
        }
    }
    return c;
}

// Tensors are indexed by int32 GEMM sizes and token positions: no tensor of a step may reach
// 2^31 elements.
constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();

// The range of each integer setting on its own (a workload checks the keys it has). hidden,
// ffn, layers and kernel keep the limits the runtime was built for; batch and seq are held
// mostly by the products in checkSizes.
struct SizeBound {
    const char* key;
    int64_t lo, hi;
};
constexpr SizeBound kSizeBounds[] = {
    {"vocab", 2, kMaxElements - 1},   // ids are int32, and bert's [MASK] is id vocab
    {"hidden", 1, 1 << 20},
    {"layers", 1, 4096},
    {"kernel", 1, 4096},
    {"heads", 1, 1 << 20},
    {"ffn", 1, 1 << 22},
    {"batch", 1, kMaxElements},
    {"seq", 1, kMaxElements},
    {"cutoffs", 1, kMaxElements - 1},   // each cutoff (and below vocab, checked with it)
    {"block", 1, 1 << 20},
    {"groups", 1, 1 << 20},
    {"conv_groups", 0, 1 << 20},        // 0: depthwise
    {"warmup", 0, kMaxElements},        // steps
    {"prune_every", 0, kMaxElements},   // steps; 0: never
};

const SizeBound& sizeBound(const std::string& key)
{
    for (const SizeBound& b : kSizeBounds)
        if (key == b.key)
            return b;
    throw std::logic_error("no bound for size '" + key + "'");
}

SizeError outOfRange(const std::string& key, const std::string& text, const SizeBound& b)
{
    return SizeError(key + "=" + text + " is out of range: " + (key == "cutoffs" ? "each cutoff" : key) +
                     " must be between " + std::to_string(b.lo) + " and " + std::to_string(b.hi));
}

// An integer setting within its bound. `text` is what the message quotes (cutoffs: the list).
int64_t parseSize(const std::string& key, const std::string& v, const std::string& text)
{
    int64_t x = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    const bool integer = p == v.data() + v.size() && !v.empty();
    if (ec == std::errc::result_out_of_range && integer)   // digits beyond int64: out of range too
        throw outOfRange(key, text, sizeBound(key));
    if (ec != std::errc() || !integer)
        throw std::invalid_argument("size '" + key + "' needs an integer, got '" + v + "'");
    const SizeBound& b = sizeBound(key);
    if (x < b.lo || x > b.hi)
        throw outOfRange(key, text, b);
    return x;
}
int64_t parseSize(const std::string& key, const std::string& v) { return parseSize(key, v, v); }

std::string joinSizes(const std::vector<int64_t>& v, const char* sep)
{
    std::string s;
    for (int64_t x : v)
        s += (s.empty() ? "" : sep) + std::to_string(x);
    return s;
}

// The integer setting `key` of `c` (not cutoffs, a list); nullopt for other settings.
std::optional<int64_t> sizeSetting(const ModelConfig& c, const std::string& key)
{
    const std::pair<const char*, int64_t> fields[] = {
        {"vocab", c.vocab}, {"hidden", c.hidden}, {"layers", c.layers}, {"kernel", c.kernel},
        {"heads", c.heads}, {"ffn", c.ffn}, {"batch", c.batch}, {"seq", c.seq}, {"block", c.block},
        {"groups", c.groups}, {"conv_groups", c.convGroups}, {"warmup", c.warmup}, {"prune_every", c.pruneEvery}};
    for (const auto& [k, v] : fields)
        if (key == k)
            return v;
    return std::nullopt;
}

// The value of a size setting of `c`, as --set writes it.
std::string settingText(const ModelConfig& c, const std::string& key)
{
    if (key == "cutoffs")
        return joinSizes(c.cutoffs, ",");
    auto v = sizeSetting(c, key);
    return v ? std::to_string(*v) : std::string();
}

// One factor of a tensor's size: how the message writes it, its value, and the setting it
// comes from ("" for a constant).
struct Factor {
    std::string label;
    int64_t value;
    std::string setting;
};

// Throws SizeError when the product of `factors` (one tensor's elements) reaches 2^31. The
// product is computed with overflow checks: a wrapped product would pass the check (and did).
void checkProduct(const ModelConfig& c, const std::vector<std::string>& changed, const std::vector<Factor>& factors)
{
    int64_t p = 1;
    bool overflow = false;
    for (const Factor& f : factors)
        overflow |= __builtin_mul_overflow(p, f.value, &p);
    if (!overflow && p <= kMaxElements)
        return;
    // Name the setting the user changed (the first one given that takes part), else the first.
    std::string key;
    for (const std::string& k : changed)
        for (const Factor& f : factors)
            if (key.empty() && f.setting == k)
                key = k;
    for (const Factor& f : factors)
        if (key.empty() && !f.setting.empty())
            key = f.setting;
    std::string expr, values;
    for (const Factor& f : factors) {
        expr += (expr.empty() ? "" : "*") + f.label;
        values += (values.empty() ? "" : " x ") + std::to_string(f.value);
    }
    throw SizeError(key + "=" + settingText(c, key) + " is out of range: " + expr + " must stay below 2^31 (" +
                    values + ")");
}

double parseReal(const std::string& key, const std::string& v, bool zeroOk = false)
{
    try {
        size_t used = 0;
        double x = std::stod(v, &used);
        if (used != v.size() || !std::isfinite(x) || x < 0 || (x == 0 && !zeroOk))
            throw std::invalid_argument("");
        return x;
    } catch (const std::exception&) {
        throw std::invalid_argument("'" + key + "' needs a " + (zeroOk ? "non-negative" : "positive") +
                                    " number, got '" + v + "'");
    }
}

std::string jsonQuote(const std::string& s)
{
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\')
            o += '\\', o += ch;
        else if (static_cast<unsigned char>(ch) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", ch);
            o += b;
        } else
            o += ch;
    }
    return o + "\"";
}

}  // namespace

const std::vector<WorkloadInfo>& workloads()
{
    static const std::vector<WorkloadInfo> w{
        {"gcn", "gated convolutional network: embedding, gated causal conv blocks (conv, GLU, residual), softmax",
         {{"vocab", "vocabulary size"},
          {"hidden", "width of the embedding and the conv blocks"},
          {"layers", "gated conv blocks"},
          {"kernel", "convolution width (tokens)"},
          {"batch", "sequences per step"},
          {"seq", "tokens per sequence"},
          {"cutoffs", "adaptive softmax cluster boundaries, e.g. 10000,20000"},
          {"lr", "SGD learning rate"},
          {"momentum", "Nesterov momentum of the dense parameters (0: plain SGD)"},
          {"clip", "clip the global gradient norm to this value (0: no clipping)"},
          {"warmup", "steps of linear learning-rate warm-up (0: none)"},
          {"zipf", "exponent of the synthetic Zipf token distribution"},
          {"corpus", "text file to train on instead of synthetic tokens"}}},
        {"transformer", "pre-norm causal Transformer decoder: embedding, attention + GELU FFN layers, final layer norm, softmax",
         {{"vocab", "vocabulary size"},
          {"hidden", "model width d"},
          {"layers", "decoder layers"},
          {"heads", "attention heads (divide hidden)"},
          {"ffn", "feed-forward width"},
          {"batch", "sequences per step"},
          {"seq", "tokens per sequence"},
          {"cutoffs", "adaptive softmax cluster boundaries, e.g. 60000,100000,640000"},
          {"lr", "SGD learning rate"},
          {"momentum", "Nesterov momentum of the dense parameters (0: plain SGD)"},
          {"clip", "clip the global gradient norm to this value (0: no clipping)"},
          {"warmup", "steps of linear learning-rate warm-up (0: none)"},
          {"zipf", "exponent of the synthetic Zipf token distribution"},
          {"corpus", "text file to train on instead of synthetic tokens"}}},
        {"bert", "BERT encoder with masked-LM loss: token + position embedding, attention + GELU FFN layers "
                 "(post- or pre-norm), MLM head, softmax; block-sparse FFN weights with density < 1",
         {{"vocab", "vocabulary size (the [MASK] token is one more embedding row)"},
          {"hidden", "model width d"},
          {"layers", "encoder layers"},
          {"heads", "attention heads (divide hidden)"},
          {"ffn", "feed-forward width"},
          {"batch", "sequences per step"},
          {"seq", "tokens per sequence"},
          {"norm", "post (BERT) or pre (layer norm at each module's input, final layer norm)"},
          {"mask", "share of tokens predicted by the MLM loss (0.15; 80% [MASK], 10% random, 10% kept)"},
          {"density", "share of the FFN weights' blocks kept (1: dense GEMMs; below 1: block-sparse kernels)"},
          {"block", "sparse block size B (B x B blocks, dividing hidden and ffn; 1: unstructured)"},
          {"prune_every", "prune the smallest blocks and regrow as many at random every N steps (0: never)"},
          {"prune_fraction", "share of each block row's blocks replaced per prune step"},
          {"sparse_attention", "1: the attention projections (QKV, output) block-sparse too; 0 (default): FFN only"},
          {"cutoffs", "adaptive softmax cluster boundaries, e.g. 4000,12000"},
          {"lr", "SGD learning rate"},
          {"momentum", "Nesterov momentum of the dense parameters (0: plain SGD)"},
          {"clip", "clip the global gradient norm to this value (0: no clipping)"},
          {"warmup", "steps of linear learning-rate warm-up (0: none)"},
          {"zipf", "exponent of the synthetic Zipf token distribution"},
          {"corpus", "text file to train on instead of synthetic tokens"}}},
        {"groupbert", "GroupBERT: BERT with a convolution module (pointwise, GLU, grouped conv, norm) before "
                      "attention and a grouped FFN in each layer, masked-LM loss",
         {{"vocab", "vocabulary size (the [MASK] token is one more embedding row)"},
          {"hidden", "model width d"},
          {"layers", "encoder layers"},
          {"heads", "attention heads (divide hidden)"},
          {"ffn", "feed-forward width"},
          {"groups", "groups of the grouped FFN's two projections (divide hidden and ffn)"},
          {"kernel", "conv module: convolution width over tokens (odd)"},
          {"conv_groups", "conv module: groups of the convolution (0: depthwise, one per channel)"},
          {"batch", "sequences per step"},
          {"seq", "tokens per sequence"},
          {"norm", "pre (default) or post"},
          {"mask", "share of tokens predicted by the MLM loss (0.15; 80% [MASK], 10% random, 10% kept)"},
          {"cutoffs", "adaptive softmax cluster boundaries, e.g. 4000,12000"},
          {"lr", "SGD learning rate"},
          {"momentum", "Nesterov momentum of the dense parameters (0: plain SGD)"},
          {"clip", "clip the global gradient norm to this value (0: no clipping)"},
          {"warmup", "steps of linear learning-rate warm-up (0: none)"},
          {"zipf", "exponent of the synthetic Zipf token distribution"},
          {"corpus", "text file to train on instead of synthetic tokens"}}},
    };
    return w;
}

const std::vector<std::string>& presets()
{
    static const std::vector<std::string> p(std::begin(kPresets), std::end(kPresets));
    return p;
}

std::string presetSummary(const std::string& preset)
{
    if (preset == "paper")
        return "the sizes of the IISWC 2019 study (GPU)";
    if (preset == "small")
        return "CPU default: one step in about a second on 2 cores";
    if (preset == "tiny")
        return "tests: a few milliseconds per step";
    return "";
}

std::vector<std::string> variants()
{
    std::vector<std::string> v;
    for (auto s : softmaxVariants())
        v.emplace_back(s);
    return v;
}

std::string variantSummary(const std::string& variant) { return std::string(softmaxVariantSummary(variant)); }

std::pair<std::string, std::string> parseOverride(const std::string& text)
{
    auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument("override '" + text + "' is not KEY=VALUE");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

ModelConfig resolveConfig(const std::string& workload, const std::string& preset, const std::string& variant,
                          const std::vector<std::pair<std::string, std::string>>& overrides)
{
    const WorkloadInfo* info = nullptr;
    for (const auto& w : workloads())
        if (w.name == workload)
            info = &w;
    if (!info)
        throw std::invalid_argument("unknown workload '" + workload + "' (gcn, transformer, bert, groupbert)");
    bool presetOk = false;
    for (const auto& p : presets())
        presetOk |= p == preset;
    if (!presetOk)
        throw std::invalid_argument("unknown preset '" + preset + "' (paper, small, tiny)");
    bool variantOk = false;
    for (auto v : softmaxVariants())
        variantOk |= v == variant;
    if (!variantOk)
        throw std::invalid_argument("unknown softmax variant '" + variant + "' (full, adaptive, bucketed, fused, fused_bf16)");

    ModelConfig c = presetConfig(workload, preset);
    c.variant = variant;
    for (const auto& [key, value] : overrides) {
        bool known = false;
        for (const auto& k : info->sizes)
            known |= k.key == key;
        if (!known)
            throw std::invalid_argument("unknown size '" + key + "' for " + workload + " (" + joinKeys(info->sizes) + ")");
        if (key == "vocab") c.vocab = parseSize(key, value);
        else if (key == "hidden") c.hidden = parseSize(key, value);
        else if (key == "layers") c.layers = parseSize(key, value);
        else if (key == "kernel") c.kernel = parseSize(key, value);
        else if (key == "heads") c.heads = parseSize(key, value);
        else if (key == "ffn") c.ffn = parseSize(key, value);
        else if (key == "batch") c.batch = parseSize(key, value);
        else if (key == "seq") c.seq = parseSize(key, value);
        else if (key == "lr") c.lr = parseReal(key, value);
        else if (key == "zipf") c.zipf = parseReal(key, value);
        else if (key == "momentum") {
            c.momentum = parseReal(key, value, true);
            if (c.momentum >= 1)
                throw std::invalid_argument("'momentum' must be below 1, got " + value);
        } else if (key == "clip") c.clip = parseReal(key, value, true);
        else if (key == "warmup") {
            c.warmup = parseSize(key, value);
        }
        else if (key == "norm") {
            if (value != "pre" && value != "post")
                throw std::invalid_argument("'norm' is pre or post, got '" + value + "'");
            c.preNorm = value == "pre";
        } else if (key == "mask") {
            c.maskRate = parseReal(key, value);
            if (c.maskRate >= 1)
                throw std::invalid_argument("'mask' must be below 1, got " + value);
        } else if (key == "density") {
            c.density = parseReal(key, value);
            if (c.density > 1)
                throw std::invalid_argument("'density' must be in (0, 1], got " + value);
        } else if (key == "block") c.block = parseSize(key, value);
        else if (key == "prune_every") c.pruneEvery = parseSize(key, value);
        else if (key == "prune_fraction") {
            c.pruneFraction = parseReal(key, value, true);
            if (c.pruneFraction >= 1)
                throw std::invalid_argument("'prune_fraction' must be below 1, got " + value);
        } else if (key == "sparse_attention") {
            if (value != "0" && value != "1")
                throw std::invalid_argument("'sparse_attention' is 0 or 1, got '" + value + "'");
            c.sparseAttention = value == "1";
        } else if (key == "groups") c.groups = parseSize(key, value);
        else if (key == "conv_groups") c.convGroups = parseSize(key, value);
        else if (key == "corpus") {
            if (value.empty())
                throw std::invalid_argument("'corpus' needs a file name");
            c.corpus = value;
        } else if (key == "cutoffs") {
            c.cutoffs.clear();
            std::stringstream ss(value);
            for (std::string part; std::getline(ss, part, ',');)
                c.cutoffs.push_back(parseSize("cutoffs", part, value));
            if (c.cutoffs.empty())
                throw std::invalid_argument("'cutoffs' needs a comma-separated list, e.g. 10000,20000");
        }
    }
    // Sizes that cannot work: each in its range, no tensor of 2^31 elements or more; then the
    // sizes that must increase or divide each other.
    std::vector<std::string> changed;
    for (const auto& kv : overrides)
        changed.push_back(kv.first);
    checkSizes(c, changed);
    if (variant != "full") {
        int64_t prev = 0;
        for (int64_t x : c.cutoffs) {
            if (x <= prev)
                throw std::invalid_argument("cutoffs must increase strictly, got " + joinSizes(c.cutoffs, ","));
            prev = x;
        }
    }
    if (c.mlm()) {
        auto need = [](bool ok, const std::string& what) {
            if (!ok)
                throw std::invalid_argument(what);
        };
        const std::string h = std::to_string(c.hidden), f = std::to_string(c.ffn);
        need(c.hidden % c.heads == 0, "hidden=" + h + " is not divisible by heads=" + std::to_string(c.heads));
        need(c.density >= 1 || (c.hidden % c.block == 0 && c.ffn % c.block == 0),
             "block=" + std::to_string(c.block) + " must divide hidden=" + h + " and ffn=" + f);
        need(c.hidden % c.groups == 0 && c.ffn % c.groups == 0,
             "groups=" + std::to_string(c.groups) + " must divide hidden=" + h + " and ffn=" + f);
        need(workload != "groupbert" || c.kernel % 2 == 1, "kernel must be odd (same padding), got " + std::to_string(c.kernel));
        need(c.convGroups == 0 || c.hidden % c.convGroups == 0,
             "conv_groups=" + std::to_string(c.convGroups) + " must divide hidden=" + h);
    }
    if (workload == "transformer" && c.hidden % c.heads != 0)
        throw std::invalid_argument("hidden=" + std::to_string(c.hidden) + " is not divisible by heads=" +
                                    std::to_string(c.heads));
    return c;
}

void checkSizes(const ModelConfig& c, const std::vector<std::string>& changed)
{
    const WorkloadInfo* info = nullptr;
    for (const auto& w : workloads())
        if (w.name == c.workload)
            info = &w;
    if (!info)
        throw std::invalid_argument("unknown workload '" + c.workload + "'");
    const bool adaptive = c.variant != "full";
    for (const SizeKey& k : info->sizes) {
        if (k.key == "cutoffs") {   // the list: each within (0, vocab), 1 to 15 of them (adaptive only)
            if (!adaptive)
                continue;
            const std::string list = joinSizes(c.cutoffs, ",");
            for (int64_t x : c.cutoffs)
                if (x < 1 || x >= c.vocab)
                    throw SizeError("cutoffs=" + list + " is out of range: each cutoff must be between 1 and vocab-1 (" +
                                    std::to_string(c.vocab - 1) + ")");
            if (c.cutoffs.empty() || c.cutoffs.size() > 15)
                throw SizeError("cutoffs=" + list + " is out of range: the adaptive softmax takes 1 to 15 cutoffs");
            continue;
        }
        auto v = sizeSetting(c, k.key);
        if (!v)
            continue;   // not an integer size (lr, norm, corpus, ...)
        const SizeBound& b = sizeBound(k.key);
        if (*v < b.lo || *v > b.hi)
            throw outOfRange(k.key, std::to_string(*v), b);
    }

    // Every tensor a step allocates, by its shape. Each size is bounded above, but a product of
    // a few can still pass int64: checkProduct multiplies with overflow checks.
    auto check = [&](const std::vector<Factor>& f) { checkProduct(c, changed, f); };
    const Factor batch{"batch", c.batch, "batch"}, seq{"seq", c.seq, "seq"}, hidden{"hidden", c.hidden, "hidden"};
    const Factor two{"2", 2, ""}, three{"3", 3, ""};
    check({batch, seq, hidden});   // every layer's activations [tokens, d]
    if (c.workload == "gcn") {
        const Factor kernel{"kernel", c.kernel, "kernel"};
        check({two, batch, seq, hidden});           // conv output [tokens, 2d]
        check({batch, seq, kernel, hidden});        // im2col columns [tokens, k*d]
        check({two, hidden, kernel, hidden});       // conv weight [2d, k*d]
    } else {
        const Factor ffn{"ffn", c.ffn, "ffn"}, heads{"heads", c.heads, "heads"};
        check({three, batch, seq, hidden});         // qkv [tokens, 3d]
        check({batch, seq, ffn});                   // FFN activations [tokens, ffn] (sparse panels: no wider)
        check({batch, heads, seq, seq});            // attention scores [batch, heads, seq, seq]
        check({three, hidden, hidden});             // qkv weight [3d, d]
        check({ffn, hidden});                       // FFN weights [ffn, d]
        if (c.workload == "groupbert") {            // conv weight [d, kernel, d / conv_groups]
            const int64_t cg = c.convGroups > 0 ? c.hidden / c.convGroups : 1;
            check({hidden, Factor{"kernel", c.kernel, "kernel"}, Factor{"hidden/conv_groups", cg, "conv_groups"}});
        }
    }
    // The embedding table (bert: one more row, [MASK]).
    check({c.mlm() ? Factor{"(vocab+1)", c.vocab + 1, "vocab"} : Factor{"vocab", c.vocab, "vocab"}, hidden});
    // The softmax layer's rows: the tokens (bert: the masked ones).
    auto rows = [&](const Factor& width) {
        std::vector<Factor> f{batch, c.mlm() ? Factor{"masked_per_seq", c.maskedPerSeq(), "seq"} : seq};
        f.push_back(width);
        return f;
    };
    if (!adaptive) {
        check(rows({"vocab", c.vocab, "vocab"}));   // logits [rows, vocab]
        return;
    }
    // Head logits [rows, cutoffs[0] + clusters]; the tail arenas [rows, largest cluster].
    const int64_t nc = int64_t(c.cutoffs.size());
    check(rows({"(cutoffs[0]+" + std::to_string(nc) + ")", c.cutoffs[0] + nc, "cutoffs"}));
    int64_t largest = 0, at = 0;
    for (int64_t i = 0; i < nc; ++i) {
        const int64_t size = (i + 1 < nc ? c.cutoffs[size_t(i) + 1] : c.vocab) - c.cutoffs[size_t(i)];
        if (size > largest)
            largest = size, at = i;
    }
    const bool last = at + 1 == nc;   // the last cluster ends at vocab
    const std::string lo = "cutoffs[" + std::to_string(at) + "]";
    check(rows({"(" + (last ? std::string("vocab") : "cutoffs[" + std::to_string(at + 1) + "]") + "-" + lo + ")",
                largest, last ? "vocab" : "cutoffs"}));
}

std::string ModelConfig::toJson() const
{
    std::ostringstream o;
    o << "{\"workload\":" << jsonQuote(workload) << ",\"preset\":" << jsonQuote(preset)
      << ",\"variant\":" << jsonQuote(variant) << ",\"backend\":\"" << (backend == BackendKind::Cuda ? "cuda" : "cpu")
      << "\",\"seed\":" << seed << ",\"vocab\":" << vocab << ",\"hidden\":" << hidden << ",\"layers\":" << layers;
    if (workload == "gcn")
        o << ",\"kernel\":" << kernel;
    else
        o << ",\"heads\":" << heads << ",\"ffn\":" << ffn;
    if (mlm())
        o << ",\"norm\":\"" << (preNorm ? "pre" : "post") << "\",\"mask\":" << maskRate
          << ",\"masked_per_seq\":" << maskedPerSeq();
    if (workload == "bert")
        o << ",\"density\":" << density << ",\"block\":" << block << ",\"prune_every\":" << pruneEvery
          << ",\"prune_fraction\":" << pruneFraction << ",\"sparse_attention\":" << (sparseAttention ? 1 : 0);
    if (workload == "groupbert")
        o << ",\"groups\":" << groups << ",\"kernel\":" << kernel << ",\"conv_groups\":" << convGroups;
    o << ",\"batch\":" << batch << ",\"seq\":" << seq << ",\"tokens\":" << batch * seq << ",\"cutoffs\":[";
    if (variant != "full")
        for (size_t i = 0; i < cutoffs.size(); ++i)
            o << (i ? "," : "") << cutoffs[i];
    o << "],\"lr\":" << lr << ",\"momentum\":" << momentum << ",\"clip\":" << clip << ",\"warmup\":" << warmup << ",\"zipf\":" << zipf << ",\"corpus\":" << jsonQuote(corpus) << "}";
    return o.str();
}

int64_t ModelConfig::maskedPerSeq() const
{
    return std::clamp<int64_t>(std::llround(maskRate * double(seq)), 1, std::max<int64_t>(seq, 1));
}

// --- model ------------------------------------------------------------------------------

Model::Model(ModelConfig config) : m_config(std::move(config)) {}
Model::~Model() = default;

std::unique_ptr<Model> Model::create(const std::string& workload, const std::string& preset,
                                     const std::string& variant,
                                     const std::vector<std::pair<std::string, std::string>>& overrides,
                                     BackendKind backend, uint64_t seed)
{
    ModelConfig c = resolveConfig(workload, preset, variant, overrides);
    c.backend = backend;
    c.seed = seed;
    return create(c);
}

std::unique_ptr<Model> Model::create(const ModelConfig& config)
{
    checkSizes(config);   // a config built by hand gets the bounds of resolveConfig's
    std::unique_ptr<Model> m(new Model(config));
    const ModelConfig& c = m->m_config;
    m->m_rt = std::make_unique<Runtime>(c.backend == BackendKind::Cuda ? makeCudaBackend() : makeCpuBackend());
    if (!c.corpus.empty())
        m->m_source = makeCorpusSource(Corpus::load(c.corpus, c.vocab));
    else
        m->m_source = makeZipfSource(c.vocab, c.zipf, c.seed);
    if (c.mlm()) {
        // One more embedding row for [MASK] (id vocab); the softmax predicts the vocab words.
        m->m_embedding = std::make_unique<BertEmbedding>(c.vocab + 1, c.hidden, c.seq);
        EncoderOptions o;
        o.preNorm = c.preNorm;
        o.groupbert = c.workload == "groupbert";
        o.groups = c.groups;
        o.convKernel = c.kernel;
        o.convGroups = c.convGroups;
        o.density = c.workload == "bert" ? c.density : 1.0;
        o.block = c.block;
        o.pruneEvery = c.pruneEvery;
        o.pruneFraction = c.pruneFraction;
        o.sparseAttention = c.sparseAttention;
        for (int64_t i = 0; i < c.layers; ++i)
            m->m_blocks.push_back(std::make_unique<EncoderLayer>("encoder." + std::to_string(i), c.hidden, c.heads,
                                                                 c.ffn, o));
        if (c.preNorm)
            m->m_blocks.push_back(std::make_unique<LayerNormBlock>("final_ln", c.hidden));
        m->m_blocks.push_back(std::make_unique<MlmHead>(c.hidden, c.batch * c.maskedPerSeq(), &m->m_maskPosDev));
        m->m_softmax = makeSoftmaxLayer(c.variant, c.vocab, c.hidden, c.cutoffs);
        m->m_maskState = fn::splitmix(c.seed ^ 0x6d61736bull);
        return m;
    }
    m->m_embedding = std::make_unique<Embedding>(c.vocab, c.hidden);
    for (int64_t i = 0; i < c.layers; ++i) {
        if (c.workload == "gcn")
            m->m_blocks.push_back(std::make_unique<GatedConvBlock>("conv" + std::to_string(i + 1), c.hidden, c.kernel));
        else
            m->m_blocks.push_back(
                std::make_unique<DecoderLayer>("decoder." + std::to_string(i), c.hidden, c.heads, c.ffn));
    }
    if (c.workload == "transformer")   // pre-norm: the residual stream is normalized once more before the softmax
        m->m_blocks.push_back(std::make_unique<LayerNormBlock>("final_ln", c.hidden));
    m->m_softmax = makeSoftmaxLayer(c.variant, c.vocab, c.hidden, c.cutoffs);
    return m;
}

std::string Model::deviceName() const { return m_rt->backend().deviceName(); }

double Model::unigramEntropy() const { return m_source->unigramEntropy(); }

std::vector<Layer*> Model::layers()
{
    std::vector<Layer*> l{m_embedding.get()};
    for (auto& b : m_blocks)
        l.push_back(b.get());
    l.push_back(m_softmax.get());
    return l;
}

void Model::setObserver(Observer* observer) { m_rt->setObserver(observer); }

void Model::setTokenSource(std::unique_ptr<TokenSource> source)
{
    m_source = std::move(source);
    m_batchReady = false;
}

void Model::prepare()
{
    if (m_prepared)
        return;
    Observer* o = m_rt->observer();
    m_rt->setObserver(nullptr);   // initialization is not part of a step
    uint64_t i = 0;
    for (Layer* l : layers())
        l->allocate(*m_rt, m_config.seed * 1000003ull + i++);
    const size_t T = size_t(m_config.batch * m_config.seq);
    m_rt->ensure(m_tokensDev, T * 4);
    m_rt->ensure(m_targetsDev, T * 4);
    if (m_config.mlm())
        m_rt->ensure(m_maskPosDev, size_t(m_config.batch * m_config.maskedPerSeq()) * 4);
    m_rt->ensure(m_lossDev, 4);
    m_rt->ensure(m_normSqDev, 4);
    if (m_rt->onDevice())
        m_rt->scratch();   // partials of split reductions (launch.h)
    // Every activation, gradient and softmax buffer, sized for the worst case of any batch
    // (tail arenas hold all N tokens): a step never allocates (nor zero-fills a new buffer).
    nextBatch();
    m_rt->setSizing(true);
    runStep(*m_rt);
    m_rt->setSizing(false);
    m_rt->synchronize();
    m_rt->setObserver(o);
    m_prepared = true;
}

void Model::nextBatch()
{
    if (m_batchReady)
        return;
    m_source->next(m_config.batch, m_config.seq, m_inputs, m_targets);
    if (m_config.mlm())
        maskBatch();
    m_batchReady = true;
}

// BERT's masking: per sequence, maskedPerSeq() distinct positions; their words become the
// targets; 80% of them are replaced by [MASK] (id vocab), 10% by a random word, 10% kept.
void Model::maskBatch()
{
    const int64_t B = m_config.batch, S = m_config.seq, n = m_config.maskedPerSeq();
    auto next = [this] { return m_maskState = fn::splitmix(m_maskState); };
    m_targets.clear();
    m_maskPos.clear();
    std::vector<int32_t> order(static_cast<size_t>(S), 0);
    for (int64_t b = 0; b < B; ++b) {
        for (int64_t i = 0; i < S; ++i)
            order[size_t(i)] = int32_t(i);
        for (int64_t i = 0; i < n; ++i) {   // partial Fisher-Yates: n distinct positions
            int64_t j = i + int64_t(next() % uint64_t(S - i));
            std::swap(order[size_t(i)], order[size_t(j)]);
        }
        std::sort(order.begin(), order.begin() + n);
        for (int64_t i = 0; i < n; ++i) {
            const size_t t = size_t(b * S + order[size_t(i)]);
            m_maskPos.push_back(int32_t(t));
            m_targets.push_back(m_inputs[t]);
            const double u = double(next() >> 11) * (1.0 / 9007199254740992.0);
            if (u < 0.8)
                m_inputs[t] = int32_t(m_config.vocab);   // [MASK]
            else if (u < 0.9)
                m_inputs[t] = int32_t(next() % uint64_t(m_config.vocab));
        }
    }
}

float Model::step()
{
    prepare();
    nextBatch();
    float loss = runStep(*m_rt);
    m_batchReady = false;
    ++m_steps;
    return loss;
}

std::vector<OpInfo> Model::listOps()
{
    nextBatch();
    if (!m_dryRt)
        m_dryRt = std::make_unique<Runtime>(nullptr);
    std::vector<OpInfo> ops;
    m_dryRt->setListing(&ops);
    runStep(*m_dryRt);
    m_dryRt->setListing(nullptr);
    return ops;
}

float Model::runStep(Runtime& rt)
{
    StepShape s{m_config.batch, m_config.seq};
    // Linear warm-up: step k (0-based) uses lr * min(1, (k + 1) / warmup).
    const double ramp = m_config.warmup > 0 ? std::min(1.0, double(m_steps + 1) / double(m_config.warmup)) : 1.0;
    const float lr = float(m_config.lr * ramp);
    const size_t T = size_t(s.tokens());
    float loss = std::numeric_limits<float>::quiet_NaN();
    Scope step(rt, "step", ScopeLevel::Step);
    {
        Scope ph(rt, "forward", ScopeLevel::Phase);
        const float* x;
        {
            Scope l(rt, "embedding", ScopeLevel::Layer);
            {
                Scope o(rt, "input", ScopeLevel::Op);
                rt.upload("memcpy_htod_tokens", m_tokensDev.i(), m_inputs.data(), T * 4);
                rt.upload("memcpy_htod_targets", m_targetsDev.i(), m_targets.data(), m_targets.size() * 4);
                if (m_config.mlm())
                    rt.upload("memcpy_htod_mask_positions", m_maskPosDev.i(), m_maskPos.data(), m_maskPos.size() * 4);
            }
            x = m_embedding->forward(rt, m_tokensDev.i(), s);
        }
        for (auto& b : m_blocks) {
            Scope l(rt, b->name(), ScopeLevel::Layer);
            x = b->forward(rt, x, s);
        }
        Scope l(rt, "softmax", ScopeLevel::Layer);
        m_softmax->forward(rt, x, m_targetsDev.i(), m_targets, m_lossDev.f());
    }
    {
        Scope ph(rt, "backward", ScopeLevel::Phase);
        const float* dx;
        {
            Scope l(rt, "softmax", ScopeLevel::Layer);
            dx = m_softmax->backward(rt);
        }
        for (size_t i = m_blocks.size(); i-- > 0;) {
            Scope l(rt, m_blocks[i]->name(), ScopeLevel::Layer);
            dx = m_blocks[i]->backward(rt, dx, s);
        }
        Scope l(rt, "embedding", ScopeLevel::Layer);
        m_embedding->backward(rt, dx, s);
    }
    {
        Scope ph(rt, "update", ScopeLevel::Phase);
        UpdateRule rule{lr, float(m_config.momentum), float(m_config.clip), nullptr};
        if (rule.clip > 0) {   // the global gradient norm, summed on the device, each layer's part in its scope
            bool first = true;
            for (Layer* layer : layers()) {
                Scope l(rt, layer->name(), ScopeLevel::Layer);
                Scope o(rt, "grad_norm", ScopeLevel::Op);
                if (first)
                    rt.zero("memset_grad_norm", m_normSqDev.f(), 4);
                first = false;
                layer->gradNorm(rt, m_normSqDev.f());
            }
            rule.normSq = m_normSqDev.f();
        }
        for (Layer* layer : layers()) {
            Scope l(rt, layer->name(), ScopeLevel::Layer);
            layer->update(rt, rule);
            if (layer == m_softmax.get()) {
                Scope o(rt, "loss_readback", ScopeLevel::Op);
                rt.download("memcpy_dtoh_loss", &loss, m_lossDev.f(), 4);   // also waits for the step
            }
        }
        for (Layer* layer : layers())   // dynamic sparsity: prune + regrow after the update
            if (layer->restructures(m_steps)) {
                Scope l(rt, layer->name(), ScopeLevel::Layer);
                layer->restructure(rt);
            }
    }
    rt.synchronize();
    return loss;
}

}  // namespace wt::kernels
