#include "kernels/data.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

namespace wt::kernels {
namespace {

uint64_t mix(uint64_t& state)
{
    uint64_t x = (state += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

class ZipfSource final : public TokenSource {
public:
    ZipfSource(int64_t vocab, double s, uint64_t seed) : m_state(seed), m_entropy(zipfEntropy(vocab, s))
    {
        m_cdf.resize(size_t(vocab));
        double sum = 0;
        for (int64_t k = 0; k < vocab; ++k)
            m_cdf[size_t(k)] = (sum += std::pow(double(k + 1), -s));
        for (double& c : m_cdf)
            c /= sum;
    }
    void next(int64_t batch, int64_t seq, std::vector<int32_t>& in, std::vector<int32_t>& tg) override
    {
        in.resize(size_t(batch * seq));
        tg.resize(size_t(batch * seq));
        for (int64_t b = 0; b < batch; ++b) {
            int32_t prev = draw();
            for (int64_t t = 0; t < seq; ++t) {
                int32_t cur = draw();
                in[size_t(b * seq + t)] = prev;
                tg[size_t(b * seq + t)] = cur;
                prev = cur;
            }
        }
    }
    double unigramEntropy() const override { return m_entropy; }

private:
    int32_t draw()
    {
        double u = double(mix(m_state) >> 11) * (1.0 / 9007199254740992.0);
        auto it = std::lower_bound(m_cdf.begin(), m_cdf.end(), u);
        return int32_t(std::min<ptrdiff_t>(it - m_cdf.begin(), ptrdiff_t(m_cdf.size()) - 1));
    }
    std::vector<double> m_cdf;
    uint64_t m_state;
    double m_entropy;
};

class CorpusSource final : public TokenSource {
public:
    explicit CorpusSource(Corpus c) : m_corpus(std::move(c))
    {
        std::unordered_map<int32_t, double> count;
        for (int32_t id : m_corpus.ids())
            count[id] += 1;
        const double n = double(m_corpus.ids().size());
        for (const auto& [id, c] : count)
            m_entropy -= c / n * std::log(c / n);
    }
    double unigramEntropy() const override { return m_entropy; }
    void next(int64_t batch, int64_t seq, std::vector<int32_t>& in, std::vector<int32_t>& tg) override
    {
        const auto& ids = m_corpus.ids();
        const size_t n = ids.size();
        in.resize(size_t(batch * seq));
        tg.resize(size_t(batch * seq));
        for (int64_t b = 0; b < batch; ++b) {
            for (int64_t t = 0; t < seq; ++t) {
                in[size_t(b * seq + t)] = ids[(m_cursor + size_t(t)) % n];
                tg[size_t(b * seq + t)] = ids[(m_cursor + size_t(t) + 1) % n];
            }
            m_cursor = (m_cursor + size_t(seq)) % n;
        }
    }

private:
    Corpus m_corpus;
    size_t m_cursor = 0;
    double m_entropy = 0;
};

}  // namespace

double zipfEntropy(int64_t vocab, double exponent)
{
    // H = log Z + (s / Z) sum_k log(k) k^-s, Z = sum_k k^-s (k = 1..vocab)
    double z = 0, t = 0;
    for (int64_t k = 1; k <= vocab; ++k) {
        double w = std::pow(double(k), -exponent);
        z += w;
        t += w * std::log(double(k));
    }
    return std::log(z) + exponent * t / z;
}

std::unique_ptr<TokenSource> makeZipfSource(int64_t vocab, double exponent, uint64_t seed)
{
    return std::make_unique<ZipfSource>(vocab, exponent, seed);
}

Corpus Corpus::load(const std::string& path, int64_t vocab)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot read corpus '" + path + "'");
    std::vector<std::string> tokens;
    std::unordered_map<std::string, int64_t> freq;
    for (std::string w; in >> w;) {
        ++freq[w];
        tokens.push_back(std::move(w));
    }
    if (tokens.empty())
        throw std::runtime_error("corpus '" + path + "' holds no token");
    std::vector<std::pair<std::string, int64_t>> ranked(freq.begin(), freq.end());
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    Corpus c;
    c.m_words.push_back("<unk>");
    std::unordered_map<std::string, int32_t> id;
    for (const auto& [w, n] : ranked) {
        if (int64_t(c.m_words.size()) >= vocab)
            break;
        if (w == "<unk>")
            continue;
        id[w] = int32_t(c.m_words.size());
        c.m_words.push_back(w);
    }
    c.m_ids.reserve(tokens.size());
    for (const auto& w : tokens) {
        auto it = id.find(w);
        c.m_ids.push_back(it == id.end() ? 0 : it->second);
    }
    return c;
}

std::unique_ptr<TokenSource> makeCorpusSource(Corpus corpus) { return std::make_unique<CorpusSource>(std::move(corpus)); }

}  // namespace wt::kernels
