#include "tracer.h"

#include "kernels/runtime.h"

namespace wt::capture {

std::string_view levelName(kernels::ScopeLevel level)
{
    switch (level) {
    case kernels::ScopeLevel::Step: return "step";
    case kernels::ScopeLevel::Phase: return "phase";
    case kernels::ScopeLevel::Layer: return "layer";
    case kernels::ScopeLevel::Op: return "op";
    }
    return "op";
}

uint32_t Tracer::nameId(std::string_view name)
{
    auto it = m_names.find(name);
    if (it != m_names.end())
        return it->second;
    uint32_t id = m_sink.name(name);
    m_names.emplace(std::string(name), id);
    return id;
}

void Tracer::scopeEnter(std::string_view name, kernels::ScopeLevel level)
{
    checkStop();
    int64_t parentNode = m_stack.empty() ? 0 : m_stack.back().node;
    int64_t node = 0;
    auto& children = m_children[parentNode];
    for (const auto& [childName, id] : children)
        if (childName == name) {
            node = id;
            break;
        }
    if (!node) {
        node = m_sink.scopeNode(parentNode, name, levelName(level));
        children.emplace_back(std::string(name), node);
    }
    int64_t instance = m_sink.beginScope(node, currentInstance(), now() - m_origin);
    m_stack.push_back(Open{node, instance});
}

void Tracer::recordLaunch(const kernels::OpLaunch& op, int64_t correlationId)
{
    LaunchRecord r;
    r.scopeInstance = currentInstance();
    r.name = nameId(op.name);
    r.kind = kernels::launchKindName(op.kind);
    r.flops = op.flops;
    r.bytesRead = op.bytesRead;
    r.bytesWritten = op.bytesWritten;
    r.correlationId = correlationId;
    if (op.dims) {
        const kernels::GemmShape g = kernels::gemmShape(op.kind, *op.dims);
        r.m = g.m;
        r.n = g.n;
        r.k = g.k;
        r.batch = g.batch;
        r.shapes = nameId(op.dims->str());
    }
    m_sink.launch(r);
}

void Tracer::scopeExit()
{
    if (m_stack.empty())
        return;
    m_sink.endScope(m_stack.back().instance, now() - m_origin);
    m_stack.pop_back();
}

void Tracer::closeOpenScopes()
{
    while (!m_stack.empty())
        scopeExit();
}

}  // namespace wt::capture
