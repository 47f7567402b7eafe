// Local de Bruijn assembly of a region: the reference path and the read slices' k-mers
// (bases below min_base_q break them), edges weighted by read support, non-reference
// edges seen fewer than min_prune times dropped (at depth and in a cohort: keep_edge).
// A repeated reference k-mer or a cycle reachable from the source makes k grow (21, 25,
// 31, 41, 51, 63); the best-scoring source-to-sink paths (sum of log10 edge weight / node
// out-weight, as GATK scores them; found best first) are the haplotypes.
#include <algorithm>
#include <cmath>
#include <queue>

#include "caller/detail.hpp"
#include "common/dna.hpp"

namespace gatemap::caller::detail {

namespace {

struct Edge {
  int to;
  int weight;            // reads, all samples
  bool ref;
  int sample_weight = 0;  // reads of the sample being added
  int best_sample = 0;    // the most reads any one sample gave it
};

using Kmer = unsigned __int128;  // k up to 63
struct KmerHash {
  size_t operator()(Kmer x) const {
    const uint64_t lo = static_cast<uint64_t>(x), hi = static_cast<uint64_t>(x >> 64);
    return static_cast<size_t>((lo ^ (hi * 0x9e3779b97f4a7c15ULL)) * 0xbf58476d1ce4e5b9ULL);
  }
};

// K-mer -> node id, open addressing: a lookup for every read base, and std::unordered_map
// allocated a node per k-mer (the 2-core assembly stage 1.69 -> 1.33 s with this).
class KmerIds {
 public:
  // The k-mer's id, or `fresh` (and `added` true) when it is new.
  int find_or_add(Kmer kmer, int fresh, bool& added) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    size_t at = KmerHash()(kmer) & (keys_.size() - 1);
    while (ids_[at] >= 0) {
      if (keys_[at] == kmer) {
        added = false;
        return ids_[at];
      }
      at = (at + 1) & (keys_.size() - 1);
    }
    keys_[at] = kmer, ids_[at] = fresh, ++size_;
    added = true;
    return fresh;
  }

 private:
  void grow() {
    std::vector<Kmer> keys(std::max<size_t>(1024, 2 * keys_.size()));
    std::vector<int> ids(keys.size(), -1);
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (ids_[i] < 0) continue;
      size_t at = KmerHash()(keys_[i]) & (keys.size() - 1);
      while (ids[at] >= 0) at = (at + 1) & (keys.size() - 1);
      keys[at] = keys_[i], ids[at] = ids_[i];
    }
    keys_.swap(keys), ids_.swap(ids);
  }
  std::vector<Kmer> keys_;
  std::vector<int> ids_;
  size_t size_ = 0;
};

struct Graph {
  KmerIds id;
  std::vector<std::vector<Edge>> out;
  std::vector<char> last_base;  // the base a node adds to a path
  int node(Kmer kmer, char base) {
    bool added = false;
    const int v = id.find_or_add(kmer, static_cast<int>(out.size()), added);
    if (added) {
      out.emplace_back();
      last_base.push_back(base);
    }
    return v;
  }
  void link(int a, int b, bool ref, int w) {
    for (Edge& e : out[a]) {
      if (e.to == b) {
        e.weight += w;
        e.sample_weight += w;
        e.ref = e.ref || ref;
        return;
      }
    }
    out[a].push_back({b, w, ref, w, 0});
  }
  // Closes one sample's reads: its counts go into each edge's best_sample.
  void end_sample() {
    for (auto& edges : out) {
      for (Edge& e : edges) e.best_sample = std::max(e.best_sample, e.sample_weight), e.sample_weight = 0;
    }
  }
};

// Whether a non-reference edge survives pruning. One sample: seen in min_prune reads
// and, where kDeepNodeWeight reads pass its node, likelier an allele than errors (below).
// A cohort: seen in min_prune reads of one sample (what that sample alone would keep), or
// in min_prune reads in all and likelier an allele than errors. Plain counts keep errors
// that recur by chance among many reads: a trio's regions grew from 2 to up to 48
// haplotypes of error bubbles' combinations, and at 1,000x 19 of 21 regions hit the cap.
// "Likelier": the log-likelihood ratio of its reads at frequency w/W (W: its node's
// reads) against errors at kErrorRate is above ln 10, as GATK's adaptive pruning; at 30x
// that needs about 3 of 60 reads, at 1,000x about 2% of them.
constexpr double kErrorRate = 0.01;
constexpr int kDeepNodeWeight = 300;  // ten times 30x: normal depth is never pruned this way
bool likelier_allele(int w, int node_weight) {
  if (w >= node_weight) return true;  // the node's only way on
  const double n = node_weight, f = w / n;
  if (f <= kErrorRate) return false;  // (the ratio is two-sided: f below the error rate scores too)
  return w * std::log(f / kErrorRate) + (n - w) * std::log((1 - f) / (1 - kErrorRate)) >= std::log(10.0);
}
bool keep_edge(const Edge& e, int node_weight, int min_prune, bool cohort) {
  if (e.ref) return true;
  if (e.weight < min_prune) return false;
  if (!cohort) return node_weight < kDeepNodeWeight || likelier_allele(e.weight, node_weight);
  return e.best_sample >= min_prune || likelier_allele(e.weight, node_weight);
}

// Adds the k-mers of s as a path; bases with low quality (when quals given) break it.
// Returns the node ids along the path (-1 where broken).
std::vector<int> add_path(Graph& g, const std::string& s, const std::vector<uint8_t>* quals, int min_q, int k,
                          bool ref) {
  std::vector<int> ids(s.size(), -1);
  const Kmer mask = (Kmer(1) << (2 * k)) - 1;
  Kmer x = 0;
  int valid = 0, prev = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    const int c = base_code(s[i]) < 4 ? base_code(s[i]) : -1;
    if (c < 0 || (quals && (*quals)[i] < min_q)) {
      valid = 0, prev = -1;
      continue;
    }
    x = ((x << 2) | static_cast<Kmer>(c)) & mask;
    if (++valid < k) continue;
    const int v = g.node(x, s[i]);
    ids[i] = v;
    if (prev >= 0) g.link(prev, v, ref, ref ? 0 : 1);
    prev = v;
  }
  return ids;
}

bool has_cycle_from(const Graph& g, int source) {
  std::vector<char> color(g.out.size(), 0);  // 0 new, 1 on stack, 2 done
  std::vector<std::pair<int, size_t>> stack{{source, 0}};
  color[source] = 1;
  while (!stack.empty()) {
    auto& [v, i] = stack.back();
    if (i == g.out[v].size()) {
      color[v] = 2;
      stack.pop_back();
      continue;
    }
    const int w = g.out[v][i++].to;
    if (color[w] == 1) return true;
    if (color[w] == 0) {
      color[w] = 1;
      stack.push_back({w, 0});
    }
  }
  return false;
}

// The `wanted` best-scoring source-to-sink paths of the DAG, best first, each spelled as
// `prefix` (the source's k-mer) and the bases its nodes add. A path scores the sum of
// log10(edge weight / its node's out-weight), as GATK scores them: the score only falls
// as a path grows, so a best-first search takes complete paths off its queue in order,
// and a node taken off `wanted` times already leads to no better path (k shortest paths).
// Deep data makes graphs of millions of paths: this finds the best without walking them.
std::vector<std::string> best_paths(const Graph& g, int source, int sink, const std::string& prefix, int wanted) {
  struct Step {
    int node, parent;  // the path's last node, and the step before it (-1: the source)
  };
  std::vector<Step> steps{{source, -1}};
  std::priority_queue<std::pair<double, int>> queue;  // score, -step (ties: the earlier step)
  queue.push({0.0, 0});
  std::vector<int> taken(g.out.size(), 0);
  std::vector<std::string> paths;
  for (int64_t budget = 200000; !queue.empty() && static_cast<int>(paths.size()) < wanted && budget > 0; --budget) {
    const auto [score, neg] = queue.top();
    queue.pop();
    const int at = -neg, v = steps[at].node;
    if (taken[v]++ >= wanted) continue;
    if (v == sink) {
      std::string tail;
      for (int s = at; steps[s].parent >= 0; s = steps[s].parent) tail.push_back(g.last_base[steps[s].node]);
      paths.push_back(prefix + std::string(tail.rbegin(), tail.rend()));
      continue;
    }
    double total = 0;
    for (const Edge& e : g.out[v]) total += std::max(e.weight, 1);
    for (const Edge& e : g.out[v]) {
      steps.push_back({e.to, at});
      queue.push({score + std::log10(std::max(e.weight, 1) / total), -static_cast<int>(steps.size() - 1)});
    }
  }
  return paths;
}

}  // namespace

std::vector<std::string> assemble(const std::string& ref_region, const std::vector<std::string>& read_slices,
                                  const std::vector<std::vector<uint8_t>>& read_quals, int min_base_q,
                                  int min_prune, int max_haplotypes, const std::vector<int>& read_samples) {
  // Reads sample by sample, so each edge learns the most reads one sample gave it.
  std::vector<int> order(read_slices.size());
  for (size_t r = 0; r < order.size(); ++r) order[r] = static_cast<int>(r);
  if (!read_samples.empty()) {
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return read_samples[a] < read_samples[b]; });
  }
  const bool cohort = !order.empty() && !read_samples.empty() && read_samples[order.front()] != read_samples[order.back()];
  for (int k : {21, 25, 31, 41, 51, 63}) {
    if (static_cast<int>(ref_region.size()) < k + 2) break;
    Graph g;
    const std::vector<int> ref_ids = add_path(g, ref_region, nullptr, 0, k, true);
    // The reference path must be simple: a repeated k-mer folds it onto itself.
    std::vector<int> on_ref;
    for (int v : ref_ids) {
      if (v >= 0) on_ref.push_back(v);
    }
    std::vector<int> sorted = on_ref;
    std::sort(sorted.begin(), sorted.end());
    if (on_ref.size() + k - 1 != ref_region.size() || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      continue;
    }
    for (size_t i = 0; i < order.size(); ++i) {
      const int r = order[i];
      add_path(g, read_slices[r], &read_quals[r], min_base_q, k, false);
      if (i + 1 == order.size() || (cohort && read_samples[order[i + 1]] != read_samples[r])) g.end_sample();
    }
    for (auto& edges : g.out) {
      int node_weight = 0;
      for (const Edge& e : edges) node_weight += e.weight;
      edges.erase(std::remove_if(edges.begin(), edges.end(),
                                 [&](const Edge& e) { return !keep_edge(e, node_weight, min_prune, cohort); }),
                  edges.end());
    }
    const int source = on_ref.front(), sink = on_ref.back();
    if (has_cycle_from(g, source)) continue;

    std::vector<std::string> haps{ref_region};
    for (std::string& p : best_paths(g, source, sink, ref_region.substr(0, k), max_haplotypes)) {
      if (static_cast<int>(haps.size()) >= max_haplotypes) break;
      if (p != ref_region) haps.push_back(std::move(p));
    }
    return haps;
  }
  return {};
}

}  // namespace gatemap::caller::detail
