# Spec section 5.3 (a fragment the spec inserts before compile in 5.2), verbatim from the MIGraphX tutorial (/work/shared/spec). The test runner
# (run_spec_program.py) substitutes only the model file, the image and, off the gpu, the target.
# 使用FP16
migraphx.quantize_fp16(model)
