#include "analysis/mlp.h"

#include "storage/json.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace wt {

namespace {

size_t parameterCount(const std::vector<int>& sizes)
{
    size_t n = 0;
    for (size_t l = 0; l + 1 < sizes.size(); ++l)
        n += size_t(sizes[l + 1]) * size_t(sizes[l]) + size_t(sizes[l + 1]);
    return n;
}

}  // namespace

Mlp::Mlp(std::vector<int> sizes, uint64_t seed) : m_sizes(std::move(sizes))
{
    if (m_sizes.size() < 2 || m_sizes.back() != 1)
        throw std::invalid_argument("an MLP has an input and one output");
    for (int s : m_sizes)
        if (s < 1)
            throw std::invalid_argument("an MLP layer has at least one unit");
    m_params.assign(parameterCount(m_sizes), 0.0);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    size_t at = 0;
    for (size_t l = 0; l + 1 < m_sizes.size(); ++l) {
        const size_t in = size_t(m_sizes[l]), out = size_t(m_sizes[l + 1]);
        const double scale = 1.0 / std::sqrt(double(in));
        for (size_t i = 0; i < in * out; ++i)
            m_params[at++] = u(rng) * scale;
        at += out;   // biases stay 0
    }
}

double Mlp::forward(const double* x) const
{
    std::vector<double> a(x, x + m_sizes.front()), z;
    size_t at = 0;
    for (size_t l = 0; l + 1 < m_sizes.size(); ++l) {
        const size_t in = size_t(m_sizes[l]), out = size_t(m_sizes[l + 1]);
        const double* w = &m_params[at];
        const double* b = &m_params[at + in * out];
        z.assign(out, 0.0);
        for (size_t o = 0; o < out; ++o) {
            double s = b[o];
            for (size_t i = 0; i < in; ++i)
                s += w[o * in + i] * a[i];
            z[o] = l + 2 < m_sizes.size() ? std::tanh(s) : s;
        }
        a.swap(z);
        at += in * out + out;
    }
    return a[0];
}

double Mlp::lossAndGradient(const std::vector<const double*>& xs, const std::vector<double>& ys,
                            std::vector<double>& gradient) const
{
    gradient.assign(m_params.size(), 0.0);
    const size_t layers = m_sizes.size() - 1;
    std::vector<size_t> offset(layers);
    for (size_t l = 0, at = 0; l < layers; ++l) {
        offset[l] = at;
        at += size_t(m_sizes[l + 1]) * size_t(m_sizes[l]) + size_t(m_sizes[l + 1]);
    }
    std::vector<std::vector<double>> act(layers + 1);
    std::vector<double> delta, prev;
    double loss = 0;
    const double n = double(xs.size());
    for (size_t r = 0; r < xs.size(); ++r) {
        act[0].assign(xs[r], xs[r] + m_sizes[0]);
        for (size_t l = 0; l < layers; ++l) {
            const size_t in = size_t(m_sizes[l]), out = size_t(m_sizes[l + 1]);
            const double* w = &m_params[offset[l]];
            const double* b = w + in * out;
            act[l + 1].assign(out, 0.0);
            for (size_t o = 0; o < out; ++o) {
                double s = b[o];
                for (size_t i = 0; i < in; ++i)
                    s += w[o * in + i] * act[l][i];
                act[l + 1][o] = l + 1 < layers ? std::tanh(s) : s;
            }
        }
        const double err = act[layers][0] - ys[r];
        loss += 0.5 * err * err / n;
        delta.assign(1, err / n);
        for (size_t l = layers; l-- > 0;) {
            const size_t in = size_t(m_sizes[l]), out = size_t(m_sizes[l + 1]);
            const double* w = &m_params[offset[l]];
            double* gw = &gradient[offset[l]];
            double* gb = gw + in * out;
            prev.assign(in, 0.0);
            for (size_t o = 0; o < out; ++o) {
                gb[o] += delta[o];
                for (size_t i = 0; i < in; ++i) {
                    gw[o * in + i] += delta[o] * act[l][i];
                    prev[i] += w[o * in + i] * delta[o];
                }
            }
            if (l > 0)   // through tanh of the layer below
                for (size_t i = 0; i < in; ++i)
                    prev[i] *= 1.0 - act[l][i] * act[l][i];
            delta.swap(prev);
        }
    }
    return loss;
}

double Mlp::train(const std::vector<double>& x, const std::vector<double>& y, const TrainOptions& o)
{
    const size_t n = y.size(), in = size_t(inputs());
    if (n == 0 || x.size() != n * in)
        throw std::invalid_argument("MLP training needs rows of " + std::to_string(in) + " inputs and one target each");
    std::vector<double> m(m_params.size(), 0.0), v(m_params.size(), 0.0), g;
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::mt19937_64 rng(o.seed);
    const size_t batch = size_t(std::max(1, o.batch));
    int64_t t = 0;
    std::vector<const double*> xs;
    std::vector<double> ys;
    for (int epoch = 0; epoch < o.epochs; ++epoch) {
        std::shuffle(order.begin(), order.end(), rng);
        for (size_t start = 0; start < n; start += batch) {
            xs.clear();
            ys.clear();
            for (size_t k = start; k < std::min(n, start + batch); ++k) {
                xs.push_back(&x[order[k] * in]);
                ys.push_back(y[order[k]]);
            }
            lossAndGradient(xs, ys, g);
            ++t;
            const double c1 = 1.0 - std::pow(o.beta1, double(t)), c2 = 1.0 - std::pow(o.beta2, double(t));
            for (size_t p = 0; p < m_params.size(); ++p) {
                m[p] = o.beta1 * m[p] + (1 - o.beta1) * g[p];
                v[p] = o.beta2 * v[p] + (1 - o.beta2) * g[p] * g[p];
                m_params[p] -= o.learningRate * (m[p] / c1) / (std::sqrt(v[p] / c2) + o.epsilon);
            }
        }
    }
    xs.clear();
    for (size_t r = 0; r < n; ++r)
        xs.push_back(&x[r * in]);
    return lossAndGradient(xs, y, g);
}

std::string Mlp::toJson() const
{
    std::string out = "{\"sizes\":[";
    for (size_t i = 0; i < m_sizes.size(); ++i)
        out += (i ? "," : "") + std::to_string(m_sizes[i]);
    out += "],\"parameters\":[";
    for (size_t i = 0; i < m_params.size(); ++i)
        out += (i ? "," : "") + json::number(m_params[i]);
    return out + "]}";
}

std::optional<Mlp> Mlp::fromJsonSizesAndParameters(std::vector<int> sizes, std::vector<double> parameters, std::string* error)
{
    auto fail = [&](const std::string& why) -> std::optional<Mlp> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (sizes.size() < 2 || sizes.back() != 1)
        return fail("mlp.sizes: an input and one output are needed");
    for (int s : sizes)
        if (s < 1 || s > 4096)
            return fail("mlp.sizes: a layer of " + std::to_string(s) + " units");
    if (parameters.size() != parameterCount(sizes))
        return fail("mlp.parameters: " + std::to_string(parameters.size()) + " values, the sizes need " +
                    std::to_string(parameterCount(sizes)));
    Mlp m;
    m.m_sizes = std::move(sizes);
    m.m_params = std::move(parameters);
    return m;
}

}  // namespace wt
