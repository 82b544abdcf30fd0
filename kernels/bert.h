// The layers of the BERT-family workloads (bert, groupbert, block-sparse bert): the embedding
// with learned positions, the encoder layer (post- or pre-norm; GroupBERT's convolution module
// and grouped FFN; block-sparse FFN weights), the masked-LM head that gathers the masked
// positions, and the blocked-ELL sparse weight with its magnitude prune / random regrow.
// Compiled by nvcc in CUDA builds like layers.cpp (see launch.h).
#pragma once

#include "kernels/attention.h"
#include "kernels/layers.h"

#include <random>

namespace wt::kernels {

// Token + learned position embedding, then layer norm (BERT's embedding block).
class BertEmbedding : public Embedding {
public:
    BertEmbedding(int64_t vocab, int64_t d, int64_t maxSeq);
    const float* forward(Runtime& rt, const int32_t* tokens, const StepShape& s) override;
    void backward(Runtime& rt, const float* dOut, const StepShape& s) override;
    using Embedding::update;
    void gradNorm(Runtime& rt, float* normSq) override;
    void update(Runtime& rt, const UpdateRule& rule) override;

private:
    Buffer m_sum, m_y, m_mean, m_rstd, m_dsum;
};

// A weight W [out, in] kept block-sparse in blocked-ELL form: block row rb (B rows) holds K
// blocks of B x B (K = density * in / B, at least 1) at block columns col[rb*K + k]. The values
// are the Param [out, K*B] (row o holds its K blocks' rows side by side), so gradient, momentum
// and SGD treat them as a dense parameter. Every block row keeps its K blocks: pruning removes
// the ones of smallest magnitude in the row and regrows as many at random zero columns.
class BlockSparseWeight {
public:
    BlockSparseWeight(int64_t out, int64_t in, int64_t block, double density, double pruneFraction);
    int64_t blocksPerRow() const { return m_K; }
    int64_t blockSize() const { return m_B; }
    int64_t out() const { return m_out; }
    int64_t in() const { return m_in; }
    int64_t prunedPerRow() const { return m_P; }
    // Random initial pattern, index uploaded (outside a step).
    void allocate(Runtime& rt, uint64_t seed);
    // y [T, out] = x W^T
    void forward(Runtime& rt, const float* x, int64_t T, const Param& values, float* y);
    // dx [T, in] = dy W; values.g = dW on the pattern
    void backward(Runtime& rt, const float* x, const float* dy, int64_t T, Param& values, float* dx);
    // Magnitude prune + random regrow (zero values and momentum) of m_P blocks per block row.
    void pruneRegrow(Runtime& rt, Param& values);
    const std::vector<int32_t>& columns() const { return m_col; }   // host copy of col (tests)
    // Device index: col [nbr*K] | colStart [in/B + 1] | colSlot [nbr*K] (the functors' arguments).
    const int32_t* deviceIndex() const { return m_indexDev.i(); }
    // Dense W [out, in] from the values (tests, host pointers).
    std::vector<float> dense(const float* values) const;

private:
    void buildIndex();
    int64_t m_out, m_in, m_B, m_nbr, m_nbc, m_K, m_P;
    std::vector<int32_t> m_col;     // [nbr*K]
    std::vector<int32_t> m_index;   // host staging: col | colStart (nbc+1) | colSlot (nbr*K) | regrown (nbr*P)
    std::vector<float> m_normsHost;
    Buffer m_indexDev, m_norms, m_panel, m_dpanel;
    std::mt19937_64 m_rng;
};

struct EncoderOptions {
    bool preNorm = false;          // pre-norm (LN at each module's input) or BERT's post-norm
    bool groupbert = false;        // conv module before attention, grouped FFN
    int64_t groups = 1;            // grouped FFN: groups of both projections
    int64_t convKernel = 7;        // conv module: width over time (odd)
    int64_t convGroups = 0;        // conv module: groups of the grouped conv (0: depthwise)
    double density = 1;            // FFN weights block-sparse below 1
    int64_t block = 1;             // sparse block size (1: unstructured)
    double pruneFraction = 0.1;    // fraction of each block row's blocks pruned per prune step
    int64_t pruneEvery = 0;        // prune + regrow after every this many steps (0: static pattern)
    bool sparseAttention = false;  // also the attention projections (QKV, output) block-sparse
};

// One encoder layer: [conv module,] attention, FFN (GroupBERT: grouped FFN), each a residual
// module with its layer norm; op scopes name the modules: conv_module, attention, ffn or
// grouped_ffn. The attention module is the QKV projection, MultiHeadAttention (attention.h,
// no mask) and the output projection.
class EncoderLayer : public Block {
public:
    EncoderLayer(std::string name, int64_t d, int64_t heads, int64_t ffn, const EncoderOptions& o);
    ~EncoderLayer() override;
    const float* forward(Runtime& rt, const float* x, const StepShape& s) override;
    const float* backward(Runtime& rt, const float* dy, const StepShape& s) override;
    void allocate(Runtime& rt, uint64_t seed) override;
    bool sparse() const { return m_up.sparse != nullptr; }
    // Prune + regrow of the sparse weights (update phase, op scope prune_regrow).
    void pruneRegrow(Runtime& rt);
    bool restructures(int64_t step) const override
    {
        return sparse() && m_o.pruneEvery > 0 && (step + 1) % m_o.pruneEvery == 0;
    }
    void restructure(Runtime& rt) override { pruneRegrow(rt); }
    BlockSparseWeight* sparseUp() { return m_up.sparse.get(); }
    BlockSparseWeight* sparseDown() { return m_down.sparse.get(); }

    // A linear map of the layer: dense, grouped (G block-diagonal groups) or block-sparse.
    struct Lin {
        Param* w = nullptr;
        Param* b = nullptr;
        int64_t in = 0, out = 0, groups = 1;
        std::unique_ptr<BlockSparseWeight> sparse;
    };
    struct Module;

private:
    Lin makeLin(const std::string& name, int64_t in, int64_t out, int64_t groups, bool sparse);
    const float* moduleForward(Runtime& rt, Module& m, const float* x, const StepShape& s);
    const float* moduleBackward(Runtime& rt, Module& m, const float* dy, const StepShape& s);
    const float* bodyForward(Runtime& rt, int which, const float* a, const StepShape& s);
    const float* bodyBackward(Runtime& rt, int which, const float* dm, const StepShape& s);

    int64_t m_d, m_ffn;
    EncoderOptions m_o;
    std::vector<std::unique_ptr<Module>> m_modules;   // conv (groupbert), attention, ffn
    Lin m_qkv, m_outp, m_up, m_down, m_pw1, m_pw2;
    Param* m_convW = nullptr;
    Param* m_convB = nullptr;
    Param* m_convLnW = nullptr;
    Param* m_convLnB = nullptr;
    int64_t m_convCg = 1;
    // attention
    MultiHeadAttention m_attention;
    Buffer m_qkvBuf, m_attn;
    Buffer m_dctx, m_dain;
    // ffn
    Buffer m_upBuf, m_act, m_downBuf, m_dup, m_dact, m_dfin;
    // conv module
    Buffer m_pw1Buf, m_glu, m_conv, m_convN, m_convMean, m_convRstd, m_convAct, m_pw2Buf;
    Buffer m_dpw1, m_dglu, m_dconv, m_dconvN, m_dconvAct, m_dcin;
};

// The masked-LM head: gathers the M masked positions' rows of the encoder output, then
// transform (dense d -> d, GELU, layer norm); the softmax layer follows. positions: a device
// int32 [M] buffer owned by the model (distinct token indices).
class MlmHead : public Block {
public:
    MlmHead(int64_t d, int64_t masked, const Buffer* positions);
    const float* forward(Runtime& rt, const float* x, const StepShape& s) override;   // [M, d]
    const float* backward(Runtime& rt, const float* dy, const StepShape& s) override;  // [T, d]

private:
    int64_t m_d, m_M;
    const Buffer* m_positions;
    Buffer m_sel, m_dense, m_act, m_y, m_mean, m_rstd, m_dact, m_ddense, m_dsel, m_dx;
};

}  // namespace wt::kernels
