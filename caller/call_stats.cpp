// CallStats: its fields as one table (common/stat_fields.hpp), summed over a run's parts
// and shown by --stats and -v.
#include <string>
#include <vector>

#include "caller/caller.hpp"
#include "common/stat_fields.hpp"

namespace gatemap::caller {

namespace {

// CallStats' fields in the order they are shown (--stats); setup and total time are a
// whole run's, not summed over its parts.
const std::vector<StatField<CallStats>>& call_stat_fields() {
  static const std::vector<StatField<CallStats>> table = {
      stat_field("reads", &CallStats::reads),
      stat_field("reads_filtered", &CallStats::reads_filtered),
      stat_field("reads_downsampled", &CallStats::reads_downsampled),
      stat_field("regions", &CallStats::regions),
      stat_field("regions_unassembled", &CallStats::regions_unassembled),
      stat_field("regions_capped", &CallStats::regions_capped),
      stat_field("haplotypes", &CallStats::haplotypes),
      stat_field("pairhmm_pairs", &CallStats::pairs),
      stat_field("calls", &CallStats::calls),
      stat_field("backend", &CallStats::backend),
      stat_field("regions_s", &CallStats::regions_s),
      stat_field("assembly_s", &CallStats::assembly_s),
      stat_field("pairhmm_s", &CallStats::pairhmm_s),
      stat_field("pairhmm_kernel_ms", &CallStats::pairhmm_kernel_ms),
      stat_field("genotype_s", &CallStats::genotype_s),
      stat_field("batch_s", &CallStats::batch_s),
      stat_field("write_s", &CallStats::write_s),
      stat_field("reads_s", &CallStats::reads_s),
      stat_field("input_wait_s", &CallStats::input_wait_s),
      stat_field("setup_s", &CallStats::setup_s, false),
      stat_field("engine_wait_s", &CallStats::engine_wait_s),
      stat_field("total_s", &CallStats::total_s, false),
  };
  return table;
}

}  // namespace

CallStats& CallStats::operator+=(const CallStats& o) {
  add_stats(*this, o, call_stat_fields());
  if (first_capped.empty()) first_capped = o.first_capped;
  return *this;
}

std::string format_stats(const CallStats& s) { return stats_tsv(s, call_stat_fields()); }

}  // namespace gatemap::caller
