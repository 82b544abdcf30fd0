// Token streams that feed the models: Zipf-distributed synthetic text matching a data set's
// vocabulary size (no download), or a real corpus (plain text, whitespace tokens, vocabulary
// ranked by frequency; id 0 is the out-of-vocabulary token "<unk>").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wt::kernels {

class TokenSource {
public:
    virtual ~TokenSource() = default;
    // Fills `inputs` and `targets` (each batch * seq ids): row b holds seq consecutive tokens
    // and the tokens that follow them.
    virtual void next(int64_t batch, int64_t seq, std::vector<int32_t>& inputs, std::vector<int32_t>& targets) = 0;
    // Entropy (nats) of the unigram distribution of the targets: the loss floor of a model
    // that only learns word frequencies (the best possible for independent Zipf tokens).
    virtual double unigramEntropy() const = 0;
};

// Independent Zipf(exponent) draws over ids 0..vocab-1 (id = frequency rank).
std::unique_ptr<TokenSource> makeZipfSource(int64_t vocab, double exponent, uint64_t seed);
// Exact entropy (nats) of Zipf(exponent) over ids 0..vocab-1.
double zipfEntropy(int64_t vocab, double exponent);

// A text corpus; throws std::runtime_error when the file cannot be read or holds no token.
class Corpus {
public:
    static Corpus load(const std::string& path, int64_t vocab);
    const std::vector<int32_t>& ids() const { return m_ids; }
    const std::vector<std::string>& words() const { return m_words; }   // words()[id]
private:
    std::vector<int32_t> m_ids;
    std::vector<std::string> m_words;
};
std::unique_ptr<TokenSource> makeCorpusSource(Corpus corpus);

}  // namespace wt::kernels
