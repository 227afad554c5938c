#ifndef MIGX_TEST_SCOPED_ENV_HPP
#define MIGX_TEST_SCOPED_ENV_HPP

// Test scaffolding for code that reads the environment or writes files: an environment
// variable set (or unset) for a scope, and a fresh temporary folder removed with its object.

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <unistd.h>

namespace migx_test {

/// Sets (or unsets, v == nullptr) an environment variable for a scope, restoring it after.
struct scoped_env
{
    std::string name;
    std::optional<std::string> old;
    scoped_env(const char* n, const char* v) : name(n)
    {
        if(const char* o = std::getenv(n))
            old = o;
        if(v == nullptr)
            unsetenv(n);
        else
            setenv(n, v, 1);
    }
    ~scoped_env()
    {
        if(old)
            setenv(name.c_str(), old->c_str(), 1);
        else
            unsetenv(name.c_str());
    }
    scoped_env(const scoped_env&)            = delete;
    scoped_env& operator=(const scoped_env&) = delete;
};

/// A fresh folder under the temporary directory, removed with the object.
struct temp_dir
{
    std::filesystem::path path;
    temp_dir()
    {
        std::string t = (std::filesystem::temp_directory_path() / "migx-test-XXXXXX").string();
        if(mkdtemp(t.data()) == nullptr)
            throw std::runtime_error("mkdtemp failed");
        path = t;
    }
    ~temp_dir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    temp_dir(const temp_dir&)            = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

} // namespace migx_test

#endif
