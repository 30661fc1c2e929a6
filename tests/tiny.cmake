# MLPerf Tiny shaped fixtures (tests/data/tiny, made by make_tiny.py): shapes,
# MAC counts, ONNX Runtime and nnfx against PyTorch's recorded outputs, the
# trained ones' accuracy (tests/tiny/check_tiny.py). And the Cortex-M harness
# beyond the M4 (tests/codegen/qemu_arm.py): the keyword model's generated C
# on QEMU's Cortex-M3 (mps2-an385, soft float) and Cortex-M55 (mps3-an547)
# against nnfx run and PyTorch, and the Cortex-M0+ soft-float link with its
# float-helper / libm symbol list (skips, 77, without the cross tools).
set(NNFX_TINY_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with numpy, for the tiny fixture tests")
if(EXISTS ${NNFX_TINY_PYTHON})
  add_test(NAME tiny_fixtures COMMAND ${NNFX_TINY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tiny/check_tiny.py
                                      $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/tiny_fixtures)
  set_tests_properties(tiny_fixtures PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
  add_test(NAME tiny_qemu_cores
           COMMAND ${NNFX_TINY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/qemu_arm.py --core m3 --core m55 --core m0plus
                   $<TARGET_FILE:nnfx> ${CMAKE_CURRENT_SOURCE_DIR}/data/kws/kws.onnx
                   --input ${CMAKE_CURRENT_SOURCE_DIR}/data/kws/kws_test_x.npy
                   --ref ${CMAKE_CURRENT_SOURCE_DIR}/data/kws/kws_logits.npy --shape x=1x1x31x20 --samples 2
                   --expect-float __aeabi_fmul,__aeabi_fadd,expf
                   --work ${CMAKE_CURRENT_BINARY_DIR}/tiny_qemu_cores)
  set_tests_properties(tiny_qemu_cores PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  # The DS-CNN keyword model integer-only (quantize --activations int8, 64
  # calibration samples; codegen --int8 --int8-io): its pointwise, 3x3
  # depthwise and single-input-channel kernels on the portable path (M3), the Arm DSP path (M4) and
  # the M55, byte for byte against nnfx run on the host; the M0+ soft-float
  # link needs no float helper or libm.
  add_test(NAME tiny_qemu_int8
           COMMAND ${NNFX_TINY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/qemu_arm.py --core m3 --core m4 --core m55
                   --core m0plus $<TARGET_FILE:nnfx> ${CMAKE_CURRENT_SOURCE_DIR}/data/tiny/dscnn.onnx
                   --calib ${CMAKE_CURRENT_SOURCE_DIR}/data/tiny/dscnn_calib_x.npy
                   --input ${CMAKE_CURRENT_SOURCE_DIR}/data/tiny/dscnn_test_x.npy --shape x=1x1x49x10 --samples 3
                   --int8-io --no-float --expect-call nnfx_rt_qpw,nnfx_rt_qdw3,nnfx_rt_qconv1
                   --work ${CMAKE_CURRENT_BINARY_DIR}/tiny_qemu_int8)
  set_tests_properties(tiny_qemu_int8 PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
endif()
