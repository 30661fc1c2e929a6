# libFuzzer targets, built only with -DNNFX_FUZZ=ON and clang:
#   CC=clang cmake -S . -B build-fuzz -G Ninja -DNNFX_FUZZ=ON -DNNFX_SANITIZE=ON
#   cmake --build build-fuzz --target fuzz_onnx_load
#   ./build-fuzz/tests/fuzz_onnx_load tests/fuzz/corpus -max_total_time=60
# A short run over the seed corpus is registered as a test.
if(NNFX_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "NNFX_FUZZ needs clang (libFuzzer); set CC=clang")
  endif()
  # coverage feedback from the library itself
  target_compile_options(nnfx_obj PRIVATE -fsanitize=fuzzer-no-link)
  target_link_options(nnfx_static INTERFACE -fsanitize=fuzzer-no-link)
  add_executable(fuzz_onnx_load ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_onnx_load.c)
  target_compile_options(fuzz_onnx_load PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_onnx_load PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_onnx_load PRIVATE nnfx_static)
  add_test(NAME fuzz_onnx_load_smoke
           COMMAND fuzz_onnx_load -runs=2000 -seed=1 ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus)
endif()
