#include "mapper/base/map_stats.hpp"

#include <sstream>

namespace gatemap::mapper {

namespace {

// Every count and time of MapStats, with its JSON name, in the JSON's order: summing and
// writing go through these lists, so a new field is added in one place.
template <class T>
struct Field {
  const char* json;
  T MapStats::*member;
};
constexpr Field<int64_t> kCounts[] = {
    {"reads", &MapStats::reads},
    {"records", &MapStats::records},
    {"mapped", &MapStats::mapped},
    {"unmapped", &MapStats::unmapped},
    {"secondary", &MapStats::secondary},
    {"supplementary", &MapStats::supplementary},
    {"proper_pairs", &MapStats::proper_pairs},
    {"rescued", &MapStats::rescued},
    {"candidates", &MapStats::candidates},
    {"filter_rejected", &MapStats::filter_rejected},
    {"filter_unfiltered", &MapStats::filter_unfiltered},
    {"verified", &MapStats::verified},
    {"verified_on_gpu", &MapStats::verified_on_gpu},
    {"reads_with_capped_seeds", &MapStats::capped_reads},
    {"reads_at_candidate_cap", &MapStats::candidate_cap_hits},
    {"deep_searches", &MapStats::deep_searches},
    {"duplicate_reads", &MapStats::duplicate_reads},
    {"duplicate_pairs", &MapStats::duplicate_pairs},
    {"duplicate_unpaired_reads", &MapStats::duplicate_unpaired},
    {"gpu_batches_on_cpu", &MapStats::filter_cpu_fallbacks},
    {"gpu_seed_batches_on_cpu", &MapStats::seed_cpu_fallbacks},
};
constexpr Field<double> kSeconds[] = {
    {"seed", &MapStats::seed_s},
    {"seed_device", &MapStats::seed_device_s},
    {"verify_device", &MapStats::verify_device_s},
    {"filter", &MapStats::filter_s},
    {"filter_kernel", &MapStats::filter_kernel_s},
    {"filter_prepare", &MapStats::filter_prepare_s},
    {"filter_engine", &MapStats::filter_engine_s},
    {"verify", &MapStats::verify_s},
    {"fallback", &MapStats::fallback_s},
    {"finish", &MapStats::pair_s},
    {"output", &MapStats::output_s},
    {"input", &MapStats::read_s},
    {"input_wait", &MapStats::input_wait_s},
    {"begin_wait", &MapStats::begin_wait_s},
    {"output_wait", &MapStats::output_wait_s},
};

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
  for (const Field<int64_t>& f : kCounts) o << "  \"" << f.json << "\": " << this->*f.member << ",\n";
  o << "  \"insert_mean\": " << insert_mean << ",\n  \"insert_sd\": " << insert_sd << ",\n";
  o << "  \"insert_histogram_bin_bp\": " << kInsertBinBp << ",\n  \"insert_histogram\": [";
  for (size_t i = 0; i < insert_histogram.size(); ++i) o << (i ? ", " : "") << insert_histogram[i];
  o << "],\n  \"mapq_histogram\": [";
  for (size_t i = 0; i < mapq_histogram.size(); ++i) o << (i ? ", " : "") << mapq_histogram[i];
  o << "],\n  \"seconds\": {";
  const char* sep = "";
  for (const Field<double>& f : kSeconds) {
    o << sep << "\"" << f.json << "\": " << this->*f.member;
    sep = ", ";
  }
  o << "}\n}\n";
  return o.str();
}

MapStats& MapStats::operator+=(const MapStats& o) {
  for (const Field<int64_t>& f : kCounts) this->*f.member += o.*f.member;
  for (const Field<double>& f : kSeconds) this->*f.member += o.*f.member;
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
