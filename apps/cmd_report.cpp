// gatemap report: a run's --stats JSON and eval tables as one self-contained HTML page.
#include <fstream>
#include <memory>
#include <sstream>

#include "apps/commands.hpp"
#include "common/error.hpp"
#include "eval/report.hpp"
#include "io/run_paths.hpp"
#include "io/text/text_output.hpp"

namespace gatemap::apps {

void register_report(CLI::App& app, AppContext& ctx) {
  auto* sub = app.add_subcommand("report", "One HTML page with plots of a run's --stats JSON and eval tables");
  struct Args {
    std::vector<std::string> inputs;
    std::string output;
  };
  auto a = std::make_shared<Args>();
  sub->add_option("inputs", a->inputs,
                  "--stats JSON of map, call, correct or index; the output of 'gatemap eval map' or 'eval vcf'")
      ->required();
  sub->add_option("-o,--output", a->output, "The page (HTML; nothing fetched when viewed)")->required();
  on_run(sub, ctx, [a] {
    io::RunPaths paths;
    for (const std::string& in : a->inputs) paths.reads(in);
    paths.writes(a->output, "-o").check();
    std::vector<eval::ReportInput> inputs;
    for (const std::string& path : a->inputs) {
      std::ifstream file(path, std::ios::binary);
      if (!file) throw IoError("cannot read '" + path + "'");
      std::ostringstream text;
      text << file.rdbuf();
      inputs.push_back({path, text.str()});
    }
    io::write_side_output(a->output, eval::report_html(inputs));
    return 0;
  });
}

}  // namespace gatemap::apps
