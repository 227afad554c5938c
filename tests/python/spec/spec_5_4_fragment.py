# Spec section 5.4 (a fragment the spec inserts before compile in 5.2), verbatim from the MIGraphX tutorial (/work/shared/spec). The test runner
# (run_spec_program.py) substitutes only the model file, the image and, off the gpu, the target.
# 读取量化校准数据
image = ReadImage()
inputData[inputName] = migraphx.argument(image)

# 创建量化数据，这里只使用了一张图像，实际使用时为了提高量化精度，建议使用多张图像创建多个inputData进行量化
calibrationData = [inputData]
migraphx.quantize_int8(model, migraphx.get_target("gpu"), calibrationData)
