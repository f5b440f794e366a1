# docs/CLI.md must be what `mallat help --markdown` prints (tools/cli_doc.h).
# Run as: cmake -DMALLAT=<binary> -DDOC=<docs/CLI.md> -P cli_reference_check.cmake
execute_process(COMMAND ${MALLAT} help --markdown OUTPUT_VARIABLE printed RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${MALLAT} help --markdown failed (exit status ${status})")
endif()
if(NOT EXISTS ${DOC})
  message(FATAL_ERROR "${DOC} is missing; make it with: ${MALLAT} help --markdown > ${DOC}")
endif()
file(READ ${DOC} stored)
if(NOT stored STREQUAL printed)
  message(FATAL_ERROR "${DOC} differs from what the option tables print; regenerate it with:\n"
                      "  ${MALLAT} help --markdown > ${DOC}")
endif()
