#include "kernelcategory.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace wt {

const std::vector<std::string>& builtinCategories()
{
    static const std::vector<std::string> all = {kCategoryGemm,          kCategoryAttention,     kCategoryCommunication,
                                                 kCategoryConvolution,   kCategoryNormalization, kCategorySoftmax,
                                                 kCategoryElementwise,   kCategoryReduction,     kCategoryMemory,
                                                 kCategoryOther};
    return all;
}

namespace {

// The built-in rules, checked in this order on the lower-cased kernel name; the first rule
// with a word found anywhere in the name gives the category (docs/categories.md lists them).
// Order matters: communication and attention kernels are often CUTLASS/GEMM-based
// (`fmha_cutlass...`), convolutions run as implicit GEMMs (`xmma_fprop_implicit_gemm`),
// softmax and normalization kernels are reductions, fused Triton kernels name the op they fuse.
struct BuiltinRule {
    const char* category;
    std::vector<std::string_view> words;
};

const std::vector<BuiltinRule>& builtinRules()
{
    static const std::vector<BuiltinRule> rules = {
        {kCategoryCommunication,
         {"nccl", "rccl", "nvshmem", "allreduce", "all_reduce", "allgather", "all_gather", "reducescatter", "reduce_scatter",
          "alltoall", "all_to_all", "sendrecv", "send_recv"}},
        {kCategoryAttention,
         {"flash", "fmha", "sdpa", "attention", "attn", "xformers", "mha_fwd", "mha_bwd", "scaled_dot_product"}},
        {kCategoryMemory, {"memcpy", "memset"}},
        {kCategoryConvolution,
         {"convolution", "convolve", "conv1d", "conv2d", "conv3d", "depthwise", "winograd", "fprop", "dgrad", "wgrad", "im2col",
          "col2im", "implicit_gemm", "scudnn", "hcudnn"}},
        {kCategoryGemm,
         {"gemm", "xmma", "nvjet", "cutlass", "cublas", "matmul", "gemv", "wmma", "dot_kernel", "addmm", "bmm",
          "linear"}},
        {kCategorySoftmax, {"softmax"}},
        {kCategoryNormalization,
         {"layer_norm", "layernorm", "batch_norm", "batchnorm", "group_norm", "groupnorm", "rms_norm", "rmsnorm", "instance_norm",
          "instancenorm", "bn_fw", "bn_bw", "welford", "gammabeta", "rowwisemoments", "computefusedparams"}},
        {kCategoryReduction,
         {"reduce", "reduction", "triton_red", "triton_per", "argmax", "argmin", "cumsum", "nll_loss", "cross_entropy", "logsumexp",
          "sum_kernel", "mean_kernel", "scan", "max_pool", "avg_pool", "maxpool", "avgpool", "adaptive_max", "adaptive_avg", "norm_kernel", "norm_sq", "bias_grad", "loss", "nonzero", "colfinish", "colpartial",
          "rowpartial"}},
        {kCategoryElementwise,
         {"elementwise", "element_wise", "pointwise", "triton_poi", "vectorized", "unrolled", "foreach", "fill", "copy", "cat_",
          "catarray", "relu", "gelu", "silu", "sigmoid", "tanh", "dropout", "glu", "add_kernel", "mul_kernel", "div_kernel", "where",
          "cast", "clamp", "sgd", "adam", "axpy", "scale", "embedding", "gather", "scatter", "index", "select", "bias_add",
          "residual", "mask", "_heads", "multi_tensor", "permute", "transpose", "nchwtonhwc", "nhwctonchw"}},
    };
    return rules;
}

std::string lower(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string trim(std::string_view s)
{
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    return std::string(s.substr(b, e - b));
}

}  // namespace

std::string_view KernelCategories::builtinCategoryOf(ActivityKind kind, std::string_view name)
{
    if (kind != ActivityKind::Kernel)
        return kCategoryMemory;
    const std::string n = lower(name);
    for (const BuiltinRule& r : builtinRules())
        for (std::string_view w : r.words)
            if (n.find(w) != std::string::npos)
                return r.category;
    return kCategoryOther;
}

std::string KernelCategories::categoryOf(ActivityKind kind, std::string_view name) const
{
    for (const Rule& r : m_rules)
        if (std::regex_search(name.begin(), name.end(), r.regex))
            return r.category;
    return std::string(builtinCategoryOf(kind, name));
}

KernelCategories KernelCategories::parse(std::string_view text, const std::string& source)
{
    KernelCategories out;
    out.m_text = std::string(text);
    std::istringstream in{std::string(text)};
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#')
            continue;
        size_t sep = t.rfind("->");
        size_t sepLen = 2;
        if (sep == std::string::npos) {
            sep = t.rfind('\t');
            sepLen = 1;
        }
        const std::string where = source + ":" + std::to_string(number) + ": ";
        if (sep == std::string::npos)
            throw CategoryRulesError(where + "expected 'REGEX -> CATEGORY', got '" + t + "'");
        const std::string pattern = trim(t.substr(0, sep));
        const std::string category = trim(t.substr(sep + sepLen));
        if (pattern.empty() || category.empty())
            throw CategoryRulesError(where + "expected 'REGEX -> CATEGORY', got '" + t + "'");
        try {
            out.m_rules.push_back(Rule{std::regex(pattern, std::regex::ECMAScript | std::regex::icase), category});
        } catch (const std::regex_error& e) {
            throw CategoryRulesError(where + "bad regular expression '" + pattern + "': " + e.what());
        }
    }
    return out;
}

KernelCategories KernelCategories::load(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw CategoryRulesError(path + ": cannot read the category rules file");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw CategoryRulesError(path + ": cannot read the category rules file");
    return parse(text.str(), path);
}

}  // namespace wt
