# libFuzzer targets, built only with -DNNFX_FUZZ=ON and clang:
#   CC=clang cmake -S . -B build-fuzz -G Ninja -DNNFX_FUZZ=ON -DNNFX_SANITIZE=ON
#   cmake --build build-fuzz --target fuzz_text_parse
#   ./build-fuzz/tests/fuzz_text_parse tests/fuzz/corpus_text -max_total_time=60
# Targets and their seed corpora (tests/fuzz/):
#   fuzz_onnx_load       ONNX reader + export                corpus/
#   fuzz_onnx_run        ONNX reader + shapes + plan + run   corpus/
#   fuzz_onnx_roundtrip  ONNX writer round trip              corpus/
#   fuzz_text_parse      text IR parser + print + run        corpus_text/
#   fuzz_rewrite         rule language: parse, apply, lint   corpus_rules/
#   fuzz_tensor_files    .npy and .pb readers                corpus_tensor/
#   fuzz_weights         a text IR's .fx.safetensors values  corpus_weights/
#   fuzz_json            registry JSON, references, docker   corpus_json/
#                        config (src/publish)
#   fuzz_registry        WWW-Authenticate, Location, origins, corpus_registry/
#                        escaping, the pull plan of a manifest
# A short run over each seed corpus is registered as a test.
if(NNFX_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "NNFX_FUZZ needs clang (libFuzzer); set CC=clang")
  endif()
  # coverage feedback from the library itself
  target_compile_options(nnfx_obj PRIVATE -fsanitize=fuzzer-no-link)
  target_link_options(nnfx_static INTERFACE -fsanitize=fuzzer-no-link)
  target_compile_options(nnfx_cli PRIVATE -fsanitize=fuzzer-no-link)
  target_compile_options(nnfx_publish PRIVATE -fsanitize=fuzzer-no-link)
  set(NNFX_FUZZ_TARGETS fuzz_onnx_load:corpus fuzz_onnx_run:corpus fuzz_onnx_roundtrip:corpus
                        fuzz_text_parse:corpus_text fuzz_rewrite:corpus_rules fuzz_tensor_files:corpus_tensor
                        fuzz_weights:corpus_weights fuzz_json:corpus_json
                        fuzz_registry:corpus_registry)
  foreach(entry ${NNFX_FUZZ_TARGETS})
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 target)
    list(GET parts 1 corpus)
    add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${target}.c)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer,${NNFX_SANITIZERS})
    target_link_options(${target} PRIVATE -fsanitize=fuzzer,${NNFX_SANITIZERS})
    # the CLI's readers and the registry client live outside libnnfx
    target_link_libraries(${target} PRIVATE nnfx_cli)
    # new inputs go to a scratch folder (libFuzzer writes to the first one);
    # the committed seeds are only read
    set(scratch ${CMAKE_CURRENT_BINARY_DIR}/fuzz_scratch/${target})
    file(MAKE_DIRECTORY ${scratch})
    add_test(NAME ${target}_smoke COMMAND ${target} -runs=2000 -seed=1 ${scratch}
                                          ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${corpus})
  endforeach()
endif()
