// The softmax layers compared by the study. All compute the same function: the mean negative
// log-likelihood of the targets under the (full or adaptive) softmax, and its gradients.
//   full      logits over the whole vocabulary, log-softmax, NLL (framework kernels)
//   adaptive  adaptive softmax run as PyTorch's AdaptiveLogSoftmaxWithLoss does: per tail
//             cluster a mask, nonzero (a host sync), index_select, two GEMMs, log-softmax,
//             gather, index_copy; then head GEMM, log-softmax, gather, mean; autograd backward
//   bucketed  tokens sorted by cluster once (one kernel, one sync), contiguous per-cluster
//             slices; same log-softmax / gather / NLL kernels as adaptive
//   fused     bucketed + one fused kernel per GEMM output: online log-sum-exp, loss and the
//             logits gradient written in place during forward; backward is GEMMs only
// See docs/softmax-variants.md for kernel sequences, FLOPs and bytes.
#pragma once

#include "kernels/layers.h"

#include <memory>
#include <string_view>
#include <vector>

namespace wt::kernels {

class SoftmaxLayer : public Layer {
public:
    SoftmaxLayer() : Layer("softmax") {}
    // h: device [N, d]; targets: device int32 [N]; hostTargets: the same on the host (used for
    // sizes in dry runs only). Writes the mean loss into the device scalar lossOut.
    virtual void forward(Runtime& rt, const float* h, const int32_t* targets, const std::vector<int32_t>& hostTargets,
                         float* lossOut) = 0;
    // Returns dLoss/dh, device [N, d].
    virtual const float* backward(Runtime& rt) = 0;
};

// variant: full, adaptive, bucketed, fused, fused_bf16 (fused with bfloat16 GEMMs: not exact). cutoffs: increasing, each in (0, vocab), empty for full.
std::unique_ptr<SoftmaxLayer> makeSoftmaxLayer(std::string_view variant, int64_t vocab, int64_t d,
                                               const std::vector<int64_t>& cutoffs);
const std::vector<std::string_view>& softmaxVariants();
std::string_view softmaxVariantSummary(std::string_view variant);
// Width of tail cluster i's projection (0-based): max(1, d / 4^(i+1)).
int64_t tailWidth(int64_t d, size_t i);

}  // namespace wt::kernels
