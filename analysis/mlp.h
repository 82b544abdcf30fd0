// A small multilayer perceptron, written here (no dependency): dense layers, tanh between them,
// a linear output of one value; mean squared error; Adam (Kingma and Ba 2015). Deterministic
// for a seed: the initialization and the minibatch order come from one std::mt19937_64, and
// the arithmetic runs in one thread in a fixed order. What the per-launch predictor of Justus
// et al. 2018 trains (analysis/mlppredictor.h); tests check the gradient against finite
// differences.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wt {

class Mlp {
public:
    Mlp() = default;
    // sizes: inputs, hidden widths..., 1. Weights ~ U(-1, 1) / sqrt(fan in) (Glorot-like), biases 0.
    Mlp(std::vector<int> sizes, uint64_t seed);

    const std::vector<int>& sizes() const { return m_sizes; }
    int inputs() const { return m_sizes.empty() ? 0 : m_sizes.front(); }
    // Every weight and bias in one vector: layer by layer, the weights (out x in, row-major), then the biases.
    std::vector<double>& parameters() { return m_params; }
    const std::vector<double>& parameters() const { return m_params; }

    double forward(const double* x) const;
    // Mean over the rows of 0.5 (f(x_i) - y_i)^2, and its gradient (as many values as parameters).
    double lossAndGradient(const std::vector<const double*>& xs, const std::vector<double>& ys,
                           std::vector<double>& gradient) const;

    struct TrainOptions {
        int epochs = 200;
        int batch = 128;
        double learningRate = 3e-3;
        double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
        uint64_t seed = 1;   // the minibatch order
    };
    // Adam on rows x (n x inputs(), row-major) against y; the final mean loss over all rows.
    double train(const std::vector<double>& x, const std::vector<double>& y, const TrainOptions& options);

    std::string toJson() const;    // {"sizes":[..],"parameters":[..]}
    static std::optional<Mlp> fromJsonSizesAndParameters(std::vector<int> sizes, std::vector<double> parameters,
                                                         std::string* error = nullptr);

private:
    std::vector<int> m_sizes;
    std::vector<double> m_params;
};

}  // namespace wt
