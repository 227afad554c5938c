#include <migraphx/onnx.hpp>
#include <migraphx/gpu/target.hpp>
#include <opencv2/opencv.hpp>

int main(int argc, char *argv[])
{
   // 设置最大输入shape: input表示输入节点名，{8,3,224,224}表示最大输入shape
   migraphx::onnx_options onnx_options;
   onnx_options.map_input_dims["input"] = {8, 3, 224, 224};

   // 加载模型
   migraphx::program net = migraphx::parse_onnx("ResNet50.onnx", onnx_options);

   // 获取模型输入/输出节点信息
   std::cout << "inputs:" << std::endl;
   std::unordered_map<std::string, migraphx::shape> inputs = net.get_inputs();
   for (auto i : inputs)
   {
      std::cout << i.first << ":" << i.second << std::endl;
   }
   std::cout << "outputs:" << std::endl;
   std::unordered_map<std::string, migraphx::shape> outputs = net.get_outputs();
   for (auto i : outputs)
   {
      std::cout << i.first << ":" << i.second << std::endl;
   }
   std::string inputName = inputs.begin()->first;
   migraphx::shape inputShape = inputs.begin()->second;
   int N = inputShape.lens()[0];
   int C = inputShape.lens()[1];
   int H = inputShape.lens()[2];
   int W = inputShape.lens()[3];

   // 编译模型
   migraphx::compile_options options;
   options.device_id = 0; // 设置GPU设备，默认为0号设备
   options.offload_copy = true;
   net.compile(migraphx::gpu::target{}, options);

   // 设置动态输入，这里添加了2个不同的输入shape
   std::vector<std::vector<std::size_t>> inputShapes;
   inputShapes.push_back({1, 3, 224, 224});
   inputShapes.push_back({2, 3, 224, 224});

   cv::Mat srcImage = cv::imread("Test.jpg", 1);
   for (int i = 0; i < inputShapes.size(); ++i)
   {
      // 数据预处理并转换为NCHW格式
      std::vector<cv::Mat> srcImages;
      for (int j = 0; j < inputShapes[i][0]; ++j)
      {
         srcImages.push_back(srcImage);
      }
      cv::Mat inputBlob;
      cv::dnn::blobFromImages(srcImages,
                              inputBlob,
                              0.0078125,
                              cv::Size(inputShapes[i][3], inputShapes[i][2]),
                              cv::Scalar(127.5, 127.5, 127.5),
                              false, false);

      // 创建输入数据
      std::unordered_map<std::string, migraphx::argument> inputData;
      inputData[inputName] = migraphx::argument{migraphx::shape(inputShape.type(), inputShapes[i]), (float *)inputBlob.data};

      // 推理
      std::vector<migraphx::argument> results = net.eval(inputData);

      // 获取输出节点的属性
      migraphx::argument result = results[0];                   // 获取第一个输出节点的数据
      migraphx::shape outputShape = result.get_shape();         // 输出节点的shape
      std::vector<std::size_t> outputSize = outputShape.lens(); // 每一维大小，维度顺序为(N,C,H,W)
      int numberOfOutput = outputShape.elements();              // 输出节点元素的个数
      float *resultData = (float *)result.data();               // 输出节点数据指针

      // 打印输出
      printf("output size:%d\n", numberOfOutput);
      for (int i = 0; i < numberOfOutput; ++i)
      {
         printf("%f,", resultData[i]);
      }
      printf("\n");
   }

   return 0;
}
