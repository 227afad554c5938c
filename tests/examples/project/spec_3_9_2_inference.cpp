// Spec section 3.9.2, verbatim except that migraphx::gpu::target{} and
// <migraphx/gpu/target.hpp> are replaced by their ref counterparts (CI has no GPU).
#include <migraphx/onnx.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/ref/target.hpp>

migraphx::program CreateNet()
{
   // 创建一个模型
   migraphx::program net;
   migraphx::module *mainModule = net.get_main_module(); // 获取主计算图

   // 添加模型的输入
   migraphx::instruction_ref input = mainModule->add_parameter("input", migraphx::shape{migraphx::shape::float_type, {1, 1, 4, 6}});

   // 添加卷积权重
   std::vector<float> weightData(1 * 1 * 1 * 1);
   for (int i = 0; i < weightData.size(); ++i)
   {
      weightData[i] = 1.0;
   }
   migraphx::shape weightShape{migraphx::shape::float_type, {1, 1, 1, 1}};
   migraphx::literal convWeight{weightShape, weightData};
   migraphx::instruction_ref convKernel = mainModule->add_literal(convWeight);

   // 添加卷积算子
   migraphx::instruction_ref conv = mainModule->add_instruction(
       migraphx::make_json_op("convolution", "{padding:[0,0],stride:[1,1],dilation:[1,1],group:1,padding_mode:0}"),
       input,
       convKernel);

   // 添加slice算子
   migraphx::instruction_ref slice = mainModule->add_instruction(
       migraphx::make_json_op("slice", "{axes:[2,3],starts:[0,2],ends:[4,5]}"),
       conv);

   // 添加contiguous算子
   migraphx::instruction_ref contiguous = mainModule->add_instruction(migraphx::make_op("contiguous"), slice);

   // 添加flatten算子
   migraphx::instruction_ref flatten = mainModule->add_instruction(migraphx::make_op("flatten"), contiguous);

   // 添加return
   mainModule->add_return({flatten});

   return net;
}

int main(int argc, char *argv[])
{
   // 创建模型
   migraphx::program net = CreateNet();

   // 编译模型
   migraphx::compile_options options;
   options.device_id = 0; // 设置GPU设备，默认为0号设备
   options.offload_copy = true;
   net.compile(migraphx::ref::target{}, options);

   // 输入数据
   std::vector<float> inputData(1 * 1 * 4 * 6);
   for (int i = 0; i < inputData.size(); ++i)
   {
      inputData[i] = i;
   }
   migraphx::shape inputShape{migraphx::shape::float_type, {1, 1, 4, 6}};
   migraphx::argument data{inputShape, inputData.data()};
   std::unordered_map<std::string, migraphx::argument> inputDataMap;
   inputDataMap["input"] = data;

   // 推理
   std::vector<migraphx::argument> results = net.eval(inputDataMap);

   // 获取输出节点的属性
   migraphx::argument result = results[0];           // 获取第一个输出节点的数据
   migraphx::shape outputShape = result.get_shape(); // 输出节点的shape
   int numberOfOutput = outputShape.elements();      // 输出节点元素的个数
   float *resultData = (float *)result.data();       // 输出节点数据指针

   // 打印推理结果
   printf("output size:%d\n", numberOfOutput);
   printf("result:\n");
   for (int i = 0; i < numberOfOutput; ++i)
   {
      printf("%d,", (int)resultData[i]);
   }
   printf("\n");

   return 0;
}
