// A minimal Observer that sums launch time per layer with a monotonic clock: forward and
// backward apart from the update phase (the softmax figure is then like for like with
// scripts/softmax-vs-pytorch.py, which times the layer's forward + backward).
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
        if (level == ScopeLevel::Phase)
            m_phase = std::string(name);
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
        if (m_phase == "update")
            m_updateSeconds += s;
        else
            m_seconds[m_layer] += s;
        std::string key = m_layer + "/" + (m_stack.empty() ? std::string() : m_stack.back()) + ":" + std::string(m_op);
        m_opSeconds[key] += s;
        m_total += s;
        ++m_launches;
        if (m_stack.size() < 3)   // a launch outside a layer scope
            ++m_outside;
    }
    // Layer name -> seconds of its forward and backward launches (the update phase apart).
    const std::map<std::string, double>& secondsPerLayer() const { return m_seconds; }
    // Seconds of the update phase (SGD of every layer, gradient clipping, loss read-back).
    double updateSeconds() const { return m_updateSeconds; }
    double totalSeconds() const { return m_total; }
    // "layer/op scope:launch name" -> seconds (all phases)
    const std::map<std::string, double>& secondsPerOp() const { return m_opSeconds; }
    long launches() const { return m_launches; }
    long launchesOutsideLayers() const { return m_outside; }
    int depth() const { return int(m_stack.size()); }
    void reset()
    {
        m_seconds.clear();
        m_opSeconds.clear();
        m_updateSeconds = m_total = 0;
        m_launches = m_outside = 0;
    }

private:
    std::vector<std::string> m_stack;
    std::string m_phase, m_layer;
    std::map<std::string, double> m_seconds;   // layer name -> seconds of forward + backward launches
    std::map<std::string, double> m_opSeconds;
    double m_updateSeconds = 0, m_total = 0;
    std::string_view m_op;
    std::chrono::steady_clock::time_point m_start;
    long m_launches = 0, m_outside = 0;
};

}  // namespace wt::kernels
