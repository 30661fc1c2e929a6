# cmake -DSRC=<repository root> -P check_layers.cmake
cmake_minimum_required(VERSION 3.16)
# Checks the layer rules of docs/architecture.md on the sources; prints every
# break (file, line's include) and fails when there is one.

# What each folder of src/ may include besides itself, nnfx.h and
# include/nnfx/ (bottom to top). A name with a slash is one header allowed.
set(allow_rt "")
set(allow_core "rt")
set(allow_ir "core;rt")
set(allow_exec "ir;core;rt")
set(allow_io "ir;core;rt")
set(allow_passes "ir;core;rt")
set(allow_rewrite "ir;core;rt")
set(allow_trace "ir;core;rt")
set(allow_quant "ir;core;rt")
set(allow_prune "passes;ir;core;rt")
set(allow_codegen "ir;core;rt;exec/plan_view.h")
set(allow_publish "core;rt")
# The command: the public header, the narrow headers published for it
# (core/files.h, io/onnx_info.h, publish/publish.h), and the private
# headers it still reads (docs/architecture.md, "Known debts"); no new ones.
set(allow_cli "core/files.h;io/onnx_info.h;publish/publish.h;core/core_int.h;core/sbuf.h;ir/ir_int.h;ir/op_table.h;ir/strmap.h")

set(breaks 0)
file(GLOB_RECURSE files RELATIVE ${SRC}/src ${SRC}/src/*.c ${SRC}/src/*.h)
foreach(f ${files})
  string(REGEX MATCH "^[^/]+" layer "${f}")
  if(NOT DEFINED allow_${layer})
    message(SEND_ERROR "src/${f}: folder ${layer} has no rule in check_layers.cmake")
    math(EXPR breaks "${breaks} + 1")
    continue()
  endif()
  file(READ ${SRC}/src/${f} text)
  string(REGEX REPLACE "[^\n]" "" newlines "${text}")
  string(LENGTH "${newlines}" nlines)
  if(nlines GREATER 2000)
    message(SEND_ERROR "src/${f}: ${nlines} lines (more than 2,000)")
    math(EXPR breaks "${breaks} + 1")
  endif()
  file(STRINGS ${SRC}/src/${f} incs REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  foreach(inc ${incs})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" h "${inc}")
    if(NOT h MATCHES "/" OR h STREQUAL "nnfx.h" OR h MATCHES "^nnfx/")
      continue() # the same folder, the build's generated files, the public header
    endif()
    string(REGEX MATCH "^[^/]+" top "${h}")
    if(top STREQUAL layer)
      continue()
    endif()
    list(FIND allow_${layer} "${top}" a)
    list(FIND allow_${layer} "${h}" b)
    if(a EQUAL -1 AND b EQUAL -1)
      message(SEND_ERROR "src/${f}: includes \"${h}\": ${layer}/ may include only: ${allow_${layer}}")
      math(EXPR breaks "${breaks} + 1")
    endif()
  endforeach()
endforeach()

# src/rt/ is the ground floor: its headers include only each other.
file(GLOB rt_files ${SRC}/src/rt/*)
foreach(f ${rt_files})
  file(STRINGS ${f} incs REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  foreach(inc ${incs})
    if(NOT inc MATCHES "\"nnfx_rt_[a-z0-9_]+\\.h\"")
      message(SEND_ERROR "${f}: ${inc}: src/rt/ includes only its own headers")
      math(EXPR breaks "${breaks} + 1")
    endif()
  endforeach()
endforeach()

# Calls through the public header count too: the passes sit above the
# engines and the generator, the generator above the engines.
foreach(layer rt core ir exec io codegen)
  file(GLOB_RECURSE fs ${SRC}/src/${layer}/*.c ${SRC}/src/${layer}/*.h)
  foreach(f ${fs})
    file(STRINGS ${f} calls REGEX "nnfx_pass_[a-z_]+\\(")
    if(calls)
      message(SEND_ERROR "${f}: calls a pass (src/passes/ is above ${layer}/): ${calls}")
      math(EXPR breaks "${breaks} + 1")
    endif()
    if(NOT layer STREQUAL "codegen")
      file(STRINGS ${f} calls REGEX "nnfx_codegen[a-z_]*\\(")
      if(calls)
        message(SEND_ERROR "${f}: calls the generator (src/codegen/ is above ${layer}/): ${calls}")
        math(EXPR breaks "${breaks} + 1")
      endif()
    endif()
  endforeach()
endforeach()

# Test-only hooks are not part of the public header.
file(STRINGS ${SRC}/include/nnfx.h hooks REGEX "nnfx_alloc_fail_at|nnfx_alloc_count|core_io_fail_at")
# ... and it has one entry point per job: one dead-code elimination
# (nnfx_eliminate_dead_code), one codegen call (nnfx_codegen with options).
file(STRINGS ${SRC}/include/nnfx.h twins REGEX "nnfx_pass_dce|nnfx_codegen_opt[ (]|nnfx_codegen_ex[ (]")
if(twins)
  message(SEND_ERROR "include/nnfx.h declares a second entry point for one job: ${twins}")
  math(EXPR breaks "${breaks} + 1")
endif()
if(hooks)
  message(SEND_ERROR "include/nnfx.h declares a test-only hook: ${hooks}")
  math(EXPR breaks "${breaks} + 1")
endif()

if(breaks GREATER 0)
  message(FATAL_ERROR "${breaks} layer rule(s) broken (docs/architecture.md)")
endif()
message(STATUS "layers: every include of src/ follows the layer rules")
