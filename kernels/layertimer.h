// A minimal Observer that sums launch time per layer (across phases) with a monotonic clock.
// Meaningful on the CPU backend, where a launch returns when its work is done; on CUDA it
// measures issue time only (use the CUPTI tracer of capture/ there).
#pragma once

#include "kernels/observer.h"

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace wt::kernels {

class LayerTimer final : public Observer {
public:
    void scopeEnter(std::string_view name, ScopeLevel level) override
    {
        m_stack.emplace_back(name);
        if (level == ScopeLevel::Layer)
            m_layer = std::string(name);
    }
    void scopeExit() override { m_stack.pop_back(); }
    void launchBegin(const OpLaunch& op) override
    {
        m_op = op.name;
        m_start = std::chrono::steady_clock::now();
    }
    void launchEnd() override
    {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        m_seconds[m_layer] += s;
        std::string key = m_layer + "/" + (m_stack.empty() ? std::string() : m_stack.back()) + ":" + std::string(m_op);
        m_opSeconds[key] += s;
        ++m_launches;
        if (m_stack.size() < 3)   // a launch outside a layer scope
            ++m_outside;
    }
    const std::map<std::string, double>& secondsPerLayer() const { return m_seconds; }
    // "layer/op scope:launch name" -> seconds
    const std::map<std::string, double>& secondsPerOp() const { return m_opSeconds; }
    long launches() const { return m_launches; }
    long launchesOutsideLayers() const { return m_outside; }
    int depth() const { return int(m_stack.size()); }
    void reset() { m_seconds.clear(); m_opSeconds.clear(); m_launches = m_outside = 0; }

private:
    std::vector<std::string> m_stack;
    std::string m_layer;
    std::map<std::string, double> m_seconds;   // layer name -> seconds of launches
    std::map<std::string, double> m_opSeconds;
    std::string_view m_op;
    std::chrono::steady_clock::time_point m_start;
    long m_launches = 0, m_outside = 0;
};

}  // namespace wt::kernels
