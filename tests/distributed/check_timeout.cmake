# check_timeout.cmake: runs timeout_probe under mpirun and checks that every rank but the one
# that left printed "timeout_probe: PASS" and that the whole job ended well within a bound (a
# hang is killed by execute_process's TIMEOUT and reported). mpirun's own exit status is not
# checked: a job that lost a rank ends with a non-zero status by design.
#   cmake -DMPIEXEC=... -DNP=3 -DPROBE=... -DMODE=finalize -DTIMEOUT_S=3 [-DEXTRA=--enable-recovery]
#         -P check_timeout.cmake
string(TIMESTAMP start "%s")
math(EXPR bound "${TIMEOUT_S} + 40")
separate_arguments(extra UNIX_COMMAND "${EXTRA}")
execute_process(
  COMMAND ${MPIEXEC} -n ${NP} ${extra} ${PROBE} ${MODE} ${TIMEOUT_S}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT ${bound})
string(TIMESTAMP stop "%s")
math(EXPR elapsed "${stop} - ${start}")
message("${out}")
message("${err}")
message("mpirun: status '${rc}' after ${elapsed} s (timeout ${TIMEOUT_S} s, bound ${bound} s)")
if(rc MATCHES "timeout|Process terminated")
  message(FATAL_ERROR "the job hung: killed after ${bound} s")
endif()
math(EXPR survivors "${NP} - 1")
string(REGEX MATCHALL "timeout_probe: PASS on rank [0-9]+" passes "${out}")
list(LENGTH passes npass)
if(NOT npass EQUAL survivors)
  message(FATAL_ERROR "${npass} of ${survivors} remaining ranks reported the timeout correctly")
endif()
message("PASS: ${npass} of ${survivors} remaining ranks got a TimeoutError in time")
