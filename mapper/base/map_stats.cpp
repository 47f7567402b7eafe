#include "mapper/base/map_stats.hpp"

#include <sstream>

#include "common/stat_fields.hpp"

namespace gatemap::mapper {

namespace {

// Every count and time of MapStats, with its JSON name, in the JSON's order: summing and
// writing go through these tables (common/stat_fields.hpp), so a new field is added in one place.
// The counts, at the JSON's top level.
const std::vector<StatField<MapStats>>& count_fields() {
  static const std::vector<StatField<MapStats>> table = {
      stat_field("reads", &MapStats::reads),
      stat_field("records", &MapStats::records),
      stat_field("mapped", &MapStats::mapped),
      stat_field("unmapped", &MapStats::unmapped),
      stat_field("secondary", &MapStats::secondary),
      stat_field("supplementary", &MapStats::supplementary),
      stat_field("proper_pairs", &MapStats::proper_pairs),
      stat_field("rescued", &MapStats::rescued),
      stat_field("candidates", &MapStats::candidates),
      stat_field("filter_rejected", &MapStats::filter_rejected),
      stat_field("filter_unfiltered", &MapStats::filter_unfiltered),
      stat_field("verified", &MapStats::verified),
      stat_field("verified_on_gpu", &MapStats::verified_on_gpu),
      stat_field("reads_with_capped_seeds", &MapStats::capped_reads),
      stat_field("reads_at_candidate_cap", &MapStats::candidate_cap_hits),
      stat_field("deep_searches", &MapStats::deep_searches),
      stat_field("duplicate_reads", &MapStats::duplicate_reads),
      stat_field("duplicate_pairs", &MapStats::duplicate_pairs),
      stat_field("duplicate_unpaired_reads", &MapStats::duplicate_unpaired),
      stat_field("gpu_batches_on_cpu", &MapStats::filter_cpu_fallbacks),
      stat_field("gpu_seed_batches_on_cpu", &MapStats::seed_cpu_fallbacks),
  };
  return table;
}

// The stage times, in its "seconds" object.
const std::vector<StatField<MapStats>>& second_fields() {
  static const std::vector<StatField<MapStats>> table = {
      stat_field("seed", &MapStats::seed_s),
      stat_field("seed_device", &MapStats::seed_device_s),
      stat_field("verify_device", &MapStats::verify_device_s),
      stat_field("filter", &MapStats::filter_s),
      stat_field("filter_kernel", &MapStats::filter_kernel_s),
      stat_field("filter_prepare", &MapStats::filter_prepare_s),
      stat_field("filter_engine", &MapStats::filter_engine_s),
      stat_field("verify", &MapStats::verify_s),
      stat_field("fallback", &MapStats::fallback_s),
      stat_field("finish", &MapStats::pair_s),
      stat_field("output", &MapStats::output_s),
      stat_field("input", &MapStats::read_s),
      stat_field("input_wait", &MapStats::input_wait_s),
      stat_field("begin_wait", &MapStats::begin_wait_s),
      stat_field("output_wait", &MapStats::output_wait_s),
  };
  return table;
}

}  // namespace

std::string MapStats::to_json(const std::vector<std::pair<std::string, int64_t>>& contigs) const {
  std::ostringstream o;
  o << "{\n";
  if (!contigs.empty()) {  // mean depth: aligned reference bases over the contigs' length
    int64_t bases = 0, length = 0;
    for (int64_t b : aligned_bases) bases += b;
    for (const auto& c : contigs) length += c.second;
    o << "  \"mean_depth\": " << (length > 0 ? static_cast<double>(bases) / static_cast<double>(length) : 0.0) << ",\n";
    if (contigs.size() <= 200) {
      o << "  \"depth\": {";
      for (size_t t = 0; t < contigs.size(); ++t) {
        const int64_t b = t < aligned_bases.size() ? aligned_bases[t] : 0;
        std::string name;
        for (char c : contigs[t].first) name += (c == '"' || c == '\\') ? '_' : c;
        o << (t ? ", " : "") << "\"" << name << "\": "
          << (contigs[t].second > 0 ? static_cast<double>(b) / static_cast<double>(contigs[t].second) : 0.0);
      }
      o << "},\n";
    }
  }
  for (const StatField<MapStats>& f : count_fields()) o << "  \"" << f.name << "\": " << f.show(*this) << ",\n";
  o << "  \"insert_mean\": " << insert_mean << ",\n  \"insert_sd\": " << insert_sd << ",\n";
  o << "  \"insert_histogram_bin_bp\": " << kInsertBinBp << ",\n  \"insert_histogram\": [";
  for (size_t i = 0; i < insert_histogram.size(); ++i) o << (i ? ", " : "") << insert_histogram[i];
  o << "],\n  \"mapq_histogram\": [";
  for (size_t i = 0; i < mapq_histogram.size(); ++i) o << (i ? ", " : "") << mapq_histogram[i];
  o << "],\n  \"seconds\": {";
  const char* sep = "";
  for (const StatField<MapStats>& f : second_fields()) {
    o << sep << "\"" << f.name << "\": " << f.number(*this);
    sep = ", ";
  }
  o << "}\n}\n";
  return o.str();
}

MapStats& MapStats::operator+=(const MapStats& o) {
  add_stats(*this, o, count_fields());
  add_stats(*this, o, second_fields());
  for (size_t i = 0; i < insert_histogram.size(); ++i) insert_histogram[i] += o.insert_histogram[i];
  for (size_t i = 0; i < mapq_histogram.size(); ++i) mapq_histogram[i] += o.mapq_histogram[i];
  if (aligned_bases.size() < o.aligned_bases.size()) aligned_bases.resize(o.aligned_bases.size());
  for (size_t t = 0; t < o.aligned_bases.size(); ++t) aligned_bases[t] += o.aligned_bases[t];
  if (o.insert_mean != 0) {
    insert_mean = o.insert_mean;
    insert_sd = o.insert_sd;
  }
  return *this;
}

}  // namespace gatemap::mapper
