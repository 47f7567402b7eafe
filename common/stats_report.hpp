#pragma once
// A run's counts and stage times, kept as "name\tvalue" lines (call's and correct's
// summaries), shown the way every command shows them: one `[M::stage]` line on stderr at
// the default verbosity, and JSON for --stats FILE (numbers bare, other values quoted).
#include <string>

namespace gatemap {

// "reads 12, backend gpu, total_s 1.5" from "reads\t12\nbackend\tgpu\ntotal_s\t1.5\n".
std::string stats_line(const std::string& tsv);
// {"reads": 12, "backend": "gpu", "total_s": 1.5} (one name a line), from the same lines.
std::string stats_json(const std::string& tsv);

}  // namespace gatemap
