# Writes OUT, a C file defining the strings cli_report_graph_js and
# cli_report_graph_css (src/cli/report_graph.c) from JS and CSS, one string
# literal a line, so the HTML reports carry the drawing's script and style.
#   cmake -DJS=graph.js -DCSS=graph.css -DOUT=report_assets.c -P embed.cmake
set(body "/* generated from src/cli/report/ by embed.cmake: do not edit */\n")
foreach(pair "cli_report_graph_js;${JS}" "cli_report_graph_css;${CSS}")
  list(GET pair 0 var)
  list(GET pair 1 f)
  file(READ ${f} text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "??" "?\\?" text "${text}")
  string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
  string(APPEND body "const char ${var}[] =\n    \"${text}\";\n\n")
endforeach()
file(WRITE ${OUT}.tmp "${body}")
file(RENAME ${OUT}.tmp ${OUT})
