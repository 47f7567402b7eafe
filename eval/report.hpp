#pragma once
// A run's numbers as one self-contained HTML page (gatemap report): each input, the
// --stats JSON of map, call, correct or index, or the table `eval map` / `eval vcf`
// printed, becomes a section with its values in a table and its charts drawn as inline
// SVG (nothing is fetched when the page is viewed). Map's stage times show the GPU's part
// beside the host's; `eval map` gives the MAPQ/accuracy curve, `eval vcf` F1 by type.
#include <string>
#include <vector>

namespace gatemap::eval {

struct ReportInput {
  std::string path;  // named in the section's title and in errors
  std::string text;  // the file's contents
};

// The page. Throws FormatError naming the file (and line) an input is not one of these.
std::string report_html(const std::vector<ReportInput>& inputs);

}  // namespace gatemap::eval
