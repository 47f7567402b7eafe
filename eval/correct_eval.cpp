// gatemap eval correct: per-base errors of reads before and after error correction,
// against their true sequences (from `gatemap sim reads --truth-fastq`). Reads are
// matched in order and must carry the same names and lengths.
#include <algorithm>

#include "common/error.hpp"
#include "eval/eval.hpp"
#include "io/reads/fastq.hpp"

namespace gatemap::eval {

CorrectEval eval_correct(const std::string& original_path, const std::string& corrected_path,
                         const std::string& truth_path) {
  io::FastqReader original(original_path), corrected(corrected_path), truth(truth_path);
  io::Read o, c, t;
  CorrectEval ev;
  while (true) {
    const bool go = original.next(o), gc = corrected.next(c), gt = truth.next(t);
    if (!go && !gc && !gt) break;
    if (!(go && gc && gt)) {
      throw FormatError("eval correct: '" + original_path + "', '" + corrected_path + "' and '" + truth_path +
                        "' do not hold the same number of reads");
    }
    if (o.name != c.name || o.name != t.name || o.seq.size() != c.seq.size() || o.seq.size() != t.seq.size()) {
      throw FormatError("eval correct: read " + std::to_string(ev.reads + 1) + " ('" + o.name +
                        "') differs in name or length between the three files");
    }
    int64_t before = 0, after = 0;
    for (size_t i = 0; i < o.seq.size(); ++i) {
      const bool wrong_before = o.seq[i] != t.seq[i];
      const bool wrong_after = c.seq[i] != t.seq[i];
      before += wrong_before;
      after += wrong_after;
      ev.fixed += wrong_before && !wrong_after;
      ev.introduced += !wrong_before && wrong_after;
      ev.changed += o.seq[i] != c.seq[i];
    }
    ++ev.reads;
    ev.bases += static_cast<int64_t>(o.seq.size());
    ev.errors_before += before;
    ev.errors_after += after;
    ev.reads_with_errors += before > 0;
    ev.reads_fully_corrected += before > 0 && after == 0;
    ev.reads_made_wrong += before == 0 && after > 0;
  }
  return ev;
}

void print_correct_eval(const CorrectEval& e, std::FILE* out) {
  const double bases = static_cast<double>(std::max<int64_t>(1, e.bases));
  std::fprintf(out, "reads\t%lld\nbases\t%lld\n", static_cast<long long>(e.reads), static_cast<long long>(e.bases));
  std::fprintf(out, "error_rate_before\t%.6f\nerror_rate_after\t%.6f\n", e.errors_before / bases, e.errors_after / bases);
  std::fprintf(out, "errors_fixed\t%lld\nerrors_introduced\t%lld\nbases_changed\t%lld\n",
               static_cast<long long>(e.fixed), static_cast<long long>(e.introduced), static_cast<long long>(e.changed));
  std::fprintf(out, "reads_with_errors\t%lld\nreads_fully_corrected\t%lld\nreads_made_wrong\t%lld\n",
               static_cast<long long>(e.reads_with_errors), static_cast<long long>(e.reads_fully_corrected),
               static_cast<long long>(e.reads_made_wrong));
}

}  // namespace gatemap::eval
