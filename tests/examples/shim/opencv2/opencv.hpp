// The little of OpenCV the spec's C++ program 9.1.2 uses (imread, Mat, Size, Scalar,
// dnn::blobFromImages), for machines without libopencv-dev. Only binary PPM (P6) images are
// read (whatever the file's extension); like OpenCV, imread gives BGR. blobFromImages resizes
// with nearest-neighbour sampling (the test feeds images already at the target size).
#ifndef MIGX_TEST_OPENCV_SHIM_HPP
#define MIGX_TEST_OPENCV_SHIM_HPP

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace cv {

struct Size
{
    int width = 0;
    int height = 0;
    Size() = default;
    Size(int w, int h) : width(w), height(h) {}
};

struct Scalar
{
    double v[4] = {0, 0, 0, 0};
    Scalar(double a = 0, double b = 0, double c = 0, double d = 0) : v{a, b, c, d} {}
    double operator[](int i) const { return v[i]; }
};

/// An 8-bit 3-channel image (rows x cols x 3, BGR) or a float blob; data points at the bytes.
struct Mat
{
    int rows = 0;
    int cols = 0;
    std::shared_ptr<std::vector<unsigned char>> bytes;
    unsigned char* data = nullptr;
    bool empty() const { return data == nullptr; }
};

inline Mat imread(const std::string& path, int = 1)
{
    std::ifstream f(path, std::ios::binary);
    std::vector<unsigned char> d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    Mat m;
    if(d.size() < 2 or d[0] != 'P' or d[1] != '6')
        return m; // OpenCV returns an empty Mat for what it cannot read
    std::size_t pos = 2;
    int vals[3]     = {0, 0, 0};
    for(int& v : vals)
    {
        while(pos < d.size() and std::isspace(d[pos]))
            pos++;
        while(pos < d.size() and std::isdigit(d[pos]))
            v = v * 10 + (d[pos++] - '0');
    }
    pos++; // one whitespace byte ends the header
    m.cols  = vals[0];
    m.rows  = vals[1];
    auto n  = static_cast<std::size_t>(m.rows) * m.cols * 3;
    if(vals[2] != 255 or pos + n > d.size())
        throw std::runtime_error("opencv shim: not an 8-bit binary PPM: " + path);
    m.bytes = std::make_shared<std::vector<unsigned char>>(n);
    for(std::size_t i = 0; i < n; i += 3) // RGB -> BGR
    {
        (*m.bytes)[i]     = d[pos + i + 2];
        (*m.bytes)[i + 1] = d[pos + i + 1];
        (*m.bytes)[i + 2] = d[pos + i];
    }
    m.data = m.bytes->data();
    return m;
}

namespace dnn {

/// NCHW float blob: (pixel - mean) * scalefactor, each image resized to size.
inline void blobFromImages(const std::vector<Mat>& images,
                           Mat& blob,
                           double scalefactor,
                           Size size,
                           const Scalar& mean,
                           bool swapRB,
                           bool crop)
{
    if(crop)
        throw std::runtime_error("opencv shim: crop is not supported");
    std::size_t plane = static_cast<std::size_t>(size.width) * size.height;
    blob.bytes        = std::make_shared<std::vector<unsigned char>>(images.size() * 3 * plane * sizeof(float));
    auto* out         = reinterpret_cast<float*>(blob.bytes->data());
    for(std::size_t n = 0; n < images.size(); n++)
        for(int c = 0; c < 3; c++)
        {
            int src_c = swapRB ? 2 - c : c;
            for(int y = 0; y < size.height; y++)
                for(int x = 0; x < size.width; x++)
                {
                    const auto& im = images[n];
                    int sy         = static_cast<int>(static_cast<long>(y) * im.rows / size.height);
                    int sx         = static_cast<int>(static_cast<long>(x) * im.cols / size.width);
                    float p        = im.data[(static_cast<std::size_t>(sy) * im.cols + sx) * 3 + src_c];
                    out[((n * 3 + c) * size.height + y) * size.width + x] =
                        static_cast<float>((p - mean[c]) * scalefactor);
                }
        }
    blob.rows = static_cast<int>(images.size());
    blob.cols = static_cast<int>(3 * plane);
    blob.data = blob.bytes->data();
}

} // namespace dnn
} // namespace cv

#endif
