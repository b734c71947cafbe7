# check_train_ddp.cmake: the example's promise. Runs train_ddp with 1 process and with NP
# processes under mpirun, then compare_curves: the per-epoch losses must agree within RTOL, and
# both runs must succeed (test accuracy >= 95% after 60 epochs).
#   cmake -DMPIEXEC=... -DNP=2 -DEXAMPLE=... -DCOMPARE=... -DEPOCHS=60 -DDTYPE=float32
#         -DRTOL=1e-3 -DWORK_DIR=... -P check_train_ddp.cmake
foreach(np 1 ${NP})
  execute_process(
    COMMAND ${MPIEXEC} -n ${np} ${EXAMPLE} ${EPOCHS} ${DTYPE}
    OUTPUT_FILE ${WORK_DIR}/train_ddp_np${np}_${DTYPE}.txt ERROR_VARIABLE err RESULT_VARIABLE rc
    TIMEOUT 600)
  file(READ ${WORK_DIR}/train_ddp_np${np}_${DTYPE}.txt out)
  message("---- mpirun -n ${np} train_ddp ${EPOCHS} ${DTYPE}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "train_ddp with ${np} process(es) failed: ${rc}")
  endif()
endforeach()
execute_process(
  COMMAND ${COMPARE} ${WORK_DIR}/train_ddp_np1_${DTYPE}.txt ${WORK_DIR}/train_ddp_np${NP}_${DTYPE}.txt
          ${RTOL}
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the loss curves of 1 and ${NP} processes differ")
endif()
