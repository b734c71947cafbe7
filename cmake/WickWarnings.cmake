# WickWarnings.cmake: the warning flags for wick's own targets (-Wall -Wextra, -Werror when
# WICK_WERROR is on, which it is for a top-level build and CI). -Wno-restrict: GCC 12 reports
# false positives inside libstdc++'s std::string (GCC bug 105329).
function(wick_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-psabi>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${WICK_WERROR}>>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${WICK_WERROR}>>:-Werror=all-warnings>)
endfunction()
