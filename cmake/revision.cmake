# cmake -DSOURCE=... -DOUTPUT=... -P revision.cmake: writes OUTPUT, a C
# header defining WEFT_REVISION as the source tree's git revision
# ("git 2ea8e13c9f1a", "-dirty" when it has changes; "unknown" outside a
# checkout), only when that changed, so that a build after a commit names
# the new revision without rebuilding anything else.
execute_process(
  COMMAND git -C ${SOURCE} describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR revision STREQUAL "")
  set(revision "unknown")
else()
  set(revision "git ${revision}")
endif()
set(text "#define WEFT_REVISION \"${revision}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
