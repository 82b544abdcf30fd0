#include "analysis/jobsummary.h"

#include "analysis/breakdown.h"
#include "analysis/compare.h"
#include "analysis/jsonvalue.h"
#include "analysis/runprofile.h"
#include "analysis/scopetree.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/storageerror.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <dirent.h>
#include <exception>
#include <map>
#include <stdexcept>
#include <sys/stat.h>
#include <thread>

namespace wt {

std::string_view toString(RankSource s)
{
    switch (s) {
    case RankSource::DistributedInfo: return "distributedInfo";
    case RankSource::FileName: return "file name";
    case RankSource::None: break;
    }
    return "none";
}

namespace {

std::string baseName(const std::string& path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Name order with digit runs compared as numbers: rank-2 < rank-10.
bool naturalLess(const std::string& a, const std::string& b)
{
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = std::isdigit(static_cast<unsigned char>(a[i])), db = std::isdigit(static_cast<unsigned char>(b[j]));
        if (da && db) {
            size_t ie = i, je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])))
                ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])))
                ++je;
            // Leading zeros do not count; then the longer run is the larger number.
            size_t is = i, js = j;
            while (is + 1 < ie && a[is] == '0')
                ++is;
            while (js + 1 < je && b[js] == '0')
                ++js;
            if (ie - is != je - js)
                return ie - is < je - js;
            const int c = a.compare(is, ie - is, b, js, je - js);
            if (c != 0)
                return c < 0;
            i = ie;
            j = je;
            continue;
        }
        if (a[i] != b[j])
            return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

// A digit run as a rank: at most 9 digits (ranks are ints), else nullopt.
std::optional<int64_t> digitsValue(const std::string& s, size_t from, size_t to)
{
    if (to <= from || to - from > 9)
        return std::nullopt;
    return std::stoll(s.substr(from, to - from));
}

// The rank a Kineto trace's distributedInfo gives (run metadata kineto.distributedInfo).
std::optional<int64_t> rankFromMetadata(const std::vector<std::pair<std::string, std::string>>& metadata)
{
    for (const auto& [key, value] : metadata) {
        if (key != "kineto.distributedInfo")
            continue;
        try {
            const JsonValue doc = JsonValue::parse(value);
            const JsonValue* rank = doc.find("rank");
            if (rank && rank->type() == JsonValue::Type::Number && rank->number() >= 0 && rank->number() < 2147483647.0 &&
                rank->number() == std::floor(rank->number()))
                return int64_t(rank->number());
        } catch (const JsonError&) {
        }
        return std::nullopt;
    }
    return std::nullopt;
}


}  // namespace

std::optional<int64_t> rankFromFileName(const std::string& path)
{
    const std::string name = baseName(path);
    std::string lower = name;
    for (char& c : lower)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    // The last "rank" followed by digits: trace.rank5.wt, rank-3.json.wt, x_rank-0-of-2.wt.
    for (size_t at = lower.rfind("rank"); at != std::string::npos; at = at == 0 ? std::string::npos : lower.rfind("rank", at - 1)) {
        size_t d = at + 4;
        if (d < lower.size() && (lower[d] == '-' || lower[d] == '_' || lower[d] == '.'))
            ++d;
        size_t e = d;
        while (e < lower.size() && std::isdigit(static_cast<unsigned char>(lower[e])))
            ++e;
        if (auto v = digitsValue(lower, d, e))
            return v;
    }
    // Else the last digits of the name before its extensions (job-3.json.wt: 3).
    size_t e = name.find('.', 1);
    e = e == std::string::npos ? name.size() : e;
    while (e > 0 && !std::isdigit(static_cast<unsigned char>(name[e - 1])))
        --e;
    size_t b = e;
    while (b > 0 && std::isdigit(static_cast<unsigned char>(name[b - 1])))
        --b;
    return digitsValue(name, b, e);
}

std::vector<std::string> jobFiles(const std::string& dir)
{
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw std::runtime_error(dir + ": not a directory");
    DIR* d = ::opendir(dir.c_str());
    if (!d)
        throw std::runtime_error(dir + ": cannot read the directory");
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.empty() || name[0] == '.' || name.size() < 4 || name.compare(name.size() - 3, 3, ".wt") != 0)
            continue;
        const std::string path = (dir.back() == '/' ? dir : dir + "/") + name;
        struct stat fs {};
        if (::stat(path.c_str(), &fs) == 0 && S_ISREG(fs.st_mode))
            names.push_back(name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end(), naturalLess);
    std::vector<std::string> out;
    out.reserve(names.size());
    for (const std::string& n : names)
        out.push_back((dir.back() == '/' ? dir : dir + "/") + n);
    return out;
}

std::vector<std::string> jobInputs(const std::vector<std::string>& inputs)
{
    std::vector<std::string> files;
    for (const std::string& in : inputs) {
        struct stat st {};
        const bool exists = ::stat(in.c_str(), &st) == 0;
        // A missing .wt file is a rank left out (openJob names it); anything else missing was
        // meant as the job's directory.
        if (!exists && !(in.size() > 3 && in.compare(in.size() - 3, 3, ".wt") == 0))
            throw std::runtime_error(in + ": no such directory");
        if (exists && S_ISDIR(st.st_mode)) {
            std::vector<std::string> found = jobFiles(in);
            if (found.empty())
                throw std::runtime_error(in + ": no .wt files (import each rank first: wheretime import RANK.json.gz -o " + in +
                                         "/rank-N.wt)");
            files.insert(files.end(), found.begin(), found.end());
        } else {
            files.push_back(in);
        }
    }
    return files;
}

RankSummary loadRankSummary(const std::string& file)
{
    RankSummary r;
    r.file = file;
    Database db(file, OpenMode::ReadOnly);
    db.exec("BEGIN");   // one read snapshot: a writer may still be finishing the file
    Reader reader(db);
    const std::vector<RunInfo> runs = reader.runs();
    if (runs.empty()) {
        db.rollback();
        throw std::runtime_error(file + ": holds no run");
    }
    r.runs = int64_t(runs.size());
    const int64_t runId = reader.resolveRun("");
    r.run = reader.run(runId);
    r.kernels = r.run.kernels;
    r.kernelTimeNs = r.run.kernelTimeNs;
    const auto metadata = reader.metadata(runId);
    if (auto rank = rankFromMetadata(metadata)) {
        r.rank = *rank;
        r.rankSource = RankSource::DistributedInfo;
    } else if (auto fromName = rankFromFileName(file)) {
        r.rank = *fromName;
        r.rankSource = RankSource::FileName;
    }

    const Strings& strings = reader.strings();
    ScopeTree tree(reader.scopes(runId), strings);
    // Steps: the stored per-step totals reduced to one number per step as they are decoded (no
    // step's rows kept); only files without them (older schemas, recovered runs) pass over their
    // activities.
    auto kernelNs = [](const std::vector<TotalRow>& rows) {
        int64_t ns = 0;
        for (const TotalRow& t : rows)
            if (t.kind == ActivityKind::Kernel)
                ns = saturatingAdd(ns, t.timeNs);
        return ns;
    };
    const bool stored = reader.forEachStepTotals(runId, [&](size_t, const std::vector<TotalRow>& rows) { r.stepKernelNs.push_back(kernelNs(rows)); });
    if (!stored) {
        r.stepsStored = false;
        for (const auto& rows : readStepTotals(reader, runId, tree))
            r.stepKernelNs.push_back(kernelNs(rows));
    }
    std::vector<double> samples(r.stepKernelNs.begin(), r.stepKernelNs.end());
    r.step = summarize(std::move(samples));
    r.stepInterval = meanInterval(r.step);

    // Layers: the breakdown `wheretime stats` shows, from the stored totals, with the grouping
    // settings stored with the run (layer depth, category rules).
    applyRunSettings(tree, metadata);
    const Breakdown b = computeBreakdown(reader.totals(runId), tree, strings, BreakdownOptions{});
    r.layers.reserve(b.groups.size());
    for (const Group& g : b.groups)
        r.layers.emplace_back(g.name, g.timeNs);
    db.rollback();
    return r;
}

StragglerRule markStragglers(std::vector<RankSummary>& ranks, double k)
{
    StragglerRule rule;
    rule.k = k;
    std::vector<double> medians;
    for (const RankSummary& r : ranks)
        if (r.step.n > 0)
            medians.push_back(r.step.median);
    rule.ranks = medians.size();
    rule.medianNs = summarize(medians).median;
    std::vector<double> deviations;
    deviations.reserve(medians.size());
    for (double m : medians)
        deviations.push_back(std::fabs(m - rule.medianNs));
    rule.madNs = summarize(std::move(deviations)).median;
    // 1.4826 x MAD estimates the standard deviation of normal samples; the floor keeps a job of
    // identical ranks (MAD 0) from calling a rank 0.1% slower a straggler.
    if (rule.ranks >= kMinSamples)
        rule.thresholdNs = rule.medianNs + std::max(k * 1.4826 * rule.madNs, rule.minShare * rule.medianNs);
    for (RankSummary& r : ranks) {
        r.vsMedian = r.step.n > 0 && rule.medianNs > 0 ? r.step.median / rule.medianNs : 0;
        r.straggler = rule.ranks >= kMinSamples && r.step.n > 0 && r.step.median > rule.thresholdNs;
    }
    return rule;
}

JobSummary openJob(const std::vector<std::string>& files, int threads, double k)
{
    const size_t n = files.size();
    std::vector<std::optional<RankSummary>> loaded(n);
    std::vector<std::string> errors(n);
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < n;) {
            try {
                loaded[i] = loadRankSummary(files[i]);
            } catch (const std::bad_alloc&) {
                errors[i] = files[i] + ": out of memory";
            } catch (const std::exception& e) {
                errors[i] = e.what();
                if (errors[i].rfind(files[i], 0) != 0)   // StorageError names the file already
                    errors[i] = files[i] + ": " + errors[i];
            }
        }
    };
    // Plain threads over a shared index, as the importer's rank parsing: kernels' ThreadPool
    // belongs to the CPU backend (wt_kernels, which analysis does not link) and spins.
    size_t workers = threads > 0 ? size_t(threads) : std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
    workers = std::max<size_t>(1, std::min(workers, n));
    std::vector<std::thread> pool;
    for (size_t t = 1; t < workers; ++t)
        pool.emplace_back(work);
    work();
    for (auto& t : pool)
        t.join();

    JobSummary job;
    for (size_t i = 0; i < n; ++i) {
        if (loaded[i])
            job.ranks.push_back(std::move(*loaded[i]));
        else
            job.failures.push_back(JobFailure{files[i], errors[i]});
    }
    // Numbered ranks first, by number; then the rest in file order (stable).
    std::stable_sort(job.ranks.begin(), job.ranks.end(), [](const RankSummary& a, const RankSummary& b) {
        if ((a.rank < 0) != (b.rank < 0))
            return a.rank >= 0;
        return a.rank < b.rank;
    });
    std::map<int64_t, std::vector<std::string>> byRank;
    for (const RankSummary& r : job.ranks)
        if (r.rank >= 0)
            byRank[r.rank].push_back(baseName(r.file));
    for (const auto& [rank, names] : byRank) {
        if (names.size() < 2)
            continue;
        std::string note = "rank " + std::to_string(rank) + " is in " + std::to_string(names.size()) + " files:";
        for (size_t i = 0; i < names.size(); ++i)
            note += (i ? ", " : " ") + names[i];
        job.duplicates.push_back(note);
    }
    job.rule = markStragglers(job.ranks, k);
    return job;
}

}  // namespace wt
