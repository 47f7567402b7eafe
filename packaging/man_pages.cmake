# Writes a man page per command (gatemap.1, gatemap-map.1, ...) from the binary's own
# --help, so that the pages say what the binary does. Run as
#   cmake -DGATEMAP=path/to/gatemap -DOUT=dir -DVERSION=x.y.z -P man_pages.cmake
set(commands index map call joint correct sim eval report pairhmm bench demo version)
file(MAKE_DIRECTORY ${OUT})

# roff: a line starting with '.' or "'" would be a request; a backslash an escape.
function(roff_escape text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(write_page name what help)
  # -t's default is the CPUs of the machine that runs it, not of the one that built the page.
  string(REGEX REPLACE "(-t,--threads INT:INT in \\[0 - [0-9]+\\])=[0-9]+" "\\1=all CPUs" help "${help}")
  roff_escape("${help}" body)
  string(TOUPPER "${name}" title)
  file(WRITE ${OUT}/${name}.1
       ".TH ${title} 1 \"\" \"gatemap ${VERSION}\" \"gatemap manual\"\n"
       ".SH NAME\n${name} \\- ${what}\n"
       ".SH DESCRIPTION\n.nf\n${body}\n.fi\n"
       ".SH SEE ALSO\ngatemap(1); the guide from FASTQ to a filtered VCF: /usr/share/doc/gatemap/USAGE.md\n")
endfunction()

execute_process(COMMAND ${GATEMAP} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GATEMAP} --help failed")
endif()
write_page(gatemap "GPU-accelerated short-read mapper and variant caller" "${help}")
foreach(cmd ${commands})
  execute_process(COMMAND ${GATEMAP} ${cmd} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${GATEMAP} ${cmd} --help failed")
  endif()
  string(REGEX MATCH "^[^\n]*" first "${help}")
  write_page(gatemap-${cmd} "${first}" "${help}")
endforeach()
