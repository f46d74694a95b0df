# help2man.cmake: a binary's man page, made from its own --help text, so the
# two cannot drift.  cmake -DPROG=path -DNAME=tracecat -DVERSION=x -DOUT=file.1
# -P help2man.cmake
#
# The first line of --help ("Usage: ...") becomes the SYNOPSIS, the next
# sentence the NAME line, and the whole text the DESCRIPTION, kept as printed
# (no fill), with roff's special characters escaped.
execute_process(COMMAND ${PROG} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROG} --help exited ${rc}")
endif()
string(REPLACE "\\" "\\e" help "${help}")
string(REGEX REPLACE "\n\\." "\n\\\\&." help "${help}")
string(REGEX REPLACE "\n'" "\n\\\\&'" help "${help}")
string(REGEX REPLACE "-" "\\\\-" help "${help}")
string(REGEX MATCH "^[^\n]*" usage "${help}")
string(REGEX REPLACE "^Usage: *" "" usage "${usage}")
# The summary: the first sentence after the usage lines.
string(REGEX REPLACE "^Usage:[^\n]*\n( +[^\n]*\n)*" "" rest "${help}")
string(REGEX MATCH "^[^.]*" summary "${rest}")
string(REPLACE "\n" " " summary "${summary}")
string(TOUPPER "${NAME}" upper)
string(TIMESTAMP year "%Y" UTC)
file(WRITE ${OUT}.tmp
".TH ${upper} 1 \"${year}\" \"tracecat ${VERSION}\" \"User Commands\"
.SH NAME
${NAME} \\- ${summary}
.SH SYNOPSIS
.B ${usage}
.SH DESCRIPTION
.nf
${help}.fi
.SH EXIT STATUS
0 on success (warnings included), 1 on bad input or an I/O failure, 2 on a
usage error.
.SH SEE ALSO
.BR tracecat (1),
.BR tracestat (1),
.BR tracesql (1),
.BR traceviz (1),
.BR tracesniff (1),
.BR tracerecord (1)
")
file(RENAME ${OUT}.tmp ${OUT})
