// ONNX conformance runner: every case of the ONNX backend test data (model.onnx plus
// test_data_set_*/input_*.pb and output_*.pb) is parsed, compiled for a target, evaluated and
// compared. A checked-in expectations file lists the cases expected to fail, each with a reason;
// the run fails on any unlisted failure and on any listed case that now passes.
//
//   onnx_conformance [--target ref] [--data DIR] [--folders node,simple] [--expected FILE]
//                    [--write-expected FILE] [--results FILE] [--filter TEXT] [--timeout SECONDS]
//                    [-j N] [-v]
//
// Expectations file lines: `<folder>/<case> <reason>` (expected failure),
// `<folder>/<case> skip: <reason>` (not run), `<folder>/<case> tolerance rtol=R atol=A: <reason>`.
//
// --results FILE writes one line per case, tab-separated, for scripts (tests/onnx/spec_table_report.py):
// `<folder>/<case>\t<PASS|FAIL|XFAIL|XPASS|SKIP>\t<message or listed reason>`.

#include "onnx_case.hpp"
#include <migraphx/errors.hpp>
#include <algorithm>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct expectation
{
    enum kind_t
    {
        fail,
        skip,
        tolerance
    } kind = fail;
    std::string reason;
    double rtol = 0, atol = 0;
};

struct options
{
    std::string target = "ref";
    std::string data   = "/usr/share/libonnx-testdata/data";
    std::vector<std::string> folders{"node", "pytorch-converted", "pytorch-operator", "simple"};
    std::string expected, write_expected, results, filter;
    int timeout = 60;
    int jobs    = 2;
    bool verbose = false;
};

std::vector<std::string> split(const std::string& s, char c)
{
    std::vector<std::string> r;
    std::stringstream ss(s);
    std::string x;
    while(std::getline(ss, x, c))
        if(not x.empty())
            r.push_back(x);
    return r;
}

std::vector<std::string> list_dir(const std::string& path)
{
    std::vector<std::string> r;
    DIR* d = opendir(path.c_str());
    if(d == nullptr)
        return r;
    while(auto* e = readdir(d))
    {
        std::string n = e->d_name;
        if(n != "." and n != "..")
            r.push_back(n);
    }
    closedir(d);
    std::sort(r.begin(), r.end());
    return r;
}

std::map<std::string, expectation> read_expectations(const std::string& path)
{
    std::map<std::string, expectation> r;
    if(path.empty())
        return r;
    std::ifstream f(path);
    if(not f)
        throw migraphx::exception("cannot read expectations file " + path);
    std::string line;
    while(std::getline(f, line))
    {
        if(line.empty() or line[0] == '#')
            continue;
        auto sp = line.find(' ');
        expectation e;
        std::string id = line.substr(0, sp);
        e.reason       = sp == std::string::npos ? "" : line.substr(sp + 1);
        if(e.reason.rfind("skip:", 0) == 0)
            e.kind = expectation::skip;
        else if(e.reason.rfind("tolerance ", 0) == 0)
        {
            e.kind = expectation::tolerance;
            std::sscanf(e.reason.c_str(), "tolerance rtol=%lf atol=%lf", &e.rtol, &e.atol);
        }
        r[id] = e;
    }
    return r;
}

struct job
{
    std::string id;
    pid_t pid = -1;
    int fd    = -1;
};

/// Runs one case in a child process so that a crash or a hang fails only that case.
job start_case(const options& opt, const std::string& id, const std::string& dir, const expectation* e)
{
    int p[2];
    if(pipe(p) != 0)
        throw migraphx::exception("pipe failed");
    pid_t pid = fork();
    if(pid == 0)
    {
        close(p[0]);
        alarm(static_cast<unsigned>(opt.timeout));
        migx_test::tolerance tol;
        if(e != nullptr and e->kind == expectation::tolerance)
            tol = {e->rtol, e->atol};
        std::string msg = migx_test::run_case(dir, opt.target, tol);
        if(msg.size() > 2000)
            msg = msg.substr(0, 2000) + "...";
        auto n = write(p[1], msg.data(), msg.size());
        (void)n;
        close(p[1]);
        _exit(0);
    }
    close(p[1]);
    return {id, pid, p[0]};
}

std::string finish_case(job& j)
{
    std::string msg;
    char buf[4096];
    ssize_t n;
    while((n = read(j.fd, buf, sizeof(buf))) > 0)
        msg.append(buf, static_cast<std::size_t>(n));
    close(j.fd);
    int status = 0;
    waitpid(j.pid, &status, 0);
    if(WIFSIGNALED(status))
    {
        if(WTERMSIG(status) == SIGALRM)
            return "timed out";
        return std::string("crashed: ") + strsignal(WTERMSIG(status));
    }
    if(msg.empty())
        return "no result from the case";
    return msg;
}

std::string one_line(std::string s)
{
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    options opt;
    for(int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        auto next     = [&]() -> std::string {
            if(i + 1 >= argc)
                throw migraphx::exception(a + " needs a value");
            return argv[++i];
        };
        if(a == "--target")
            opt.target = next();
        else if(a == "--data")
            opt.data = next();
        else if(a == "--folders")
            opt.folders = split(next(), ',');
        else if(a == "--expected")
            opt.expected = next();
        else if(a == "--write-expected")
            opt.write_expected = next();
        else if(a == "--results")
            opt.results = next();
        else if(a == "--filter")
            opt.filter = next();
        else if(a == "--timeout")
            opt.timeout = std::stoi(next());
        else if(a == "-j")
            opt.jobs = std::max(1, std::stoi(next()));
        else if(a == "-v")
            opt.verbose = true;
        else
        {
            std::cerr << "unknown argument " << a << "\n";
            return 2;
        }
    }
    auto targets = migraphx::get_targets();
    if(std::find(targets.begin(), targets.end(), opt.target) == targets.end())
    {
        std::cout << "target '" << opt.target << "' is not available here; skipping\n";
        return 77;
    }
    struct stat st{};
    if(stat(opt.data.c_str(), &st) != 0)
    {
        std::cout << "ONNX test data not found at " << opt.data << "; skipping\n";
        return 77;
    }
    auto expected = read_expectations(opt.expected);
    std::map<std::string, std::string> failures; // id -> message
    int bad = 0;
    struct counts
    {
        int passed = 0, failed = 0, skipped = 0, xfail = 0, fixed = 0;
    } total;
    std::vector<std::string> seen;
    std::ofstream results_file;
    if(not opt.results.empty())
    {
        results_file.open(opt.results);
        if(not results_file)
            throw migraphx::exception("cannot write results file " + opt.results);
    }
    auto record = [&](const std::string& id, const std::string& status, const std::string& msg) {
        if(results_file.is_open())
            results_file << id << "\t" << status << "\t" << one_line(msg) << "\n";
    };
    for(const auto& folder : opt.folders)
    {
        counts c;
        std::vector<job> running;
        auto report = [&](job& j) {
            auto msg  = finish_case(j);
            auto it   = expected.find(j.id);
            bool xf   = it != expected.end() and it->second.kind == expectation::fail;
            bool pass = msg.rfind("PASS", 0) == 0;
            if(msg != "PASS" and pass)
                c.fixed++;
            if(pass)
                c.passed++;
            else
            {
                c.failed++;
                failures[j.id] = one_line(msg);
            }
            if(pass and xf)
            {
                bad++;
                std::cout << "UNEXPECTED PASS " << j.id << " (listed: " << it->second.reason << ")\n";
            }
            else if(not pass and not xf)
            {
                bad++;
                std::cout << "FAIL " << j.id << ": " << one_line(msg) << "\n";
            }
            else if(opt.verbose)
                std::cout << (pass ? "PASS " : "XFAIL ") << j.id << (msg == "PASS" ? "" : ": " + one_line(msg))
                          << "\n";
            if(xf and not pass)
                c.xfail++;
            record(j.id, pass ? (xf ? "XPASS" : "PASS") : (xf ? "XFAIL" : "FAIL"), msg);
        };
        for(const auto& name : list_dir(opt.data + "/" + folder))
        {
            std::string id = folder + "/" + name;
            if(not opt.filter.empty() and id.find(opt.filter) == std::string::npos)
                continue;
            seen.push_back(id);
            auto it = expected.find(id);
            if(it != expected.end() and it->second.kind == expectation::skip)
            {
                c.skipped++;
                record(id, "SKIP", it->second.reason);
                if(opt.verbose)
                    std::cout << "SKIP " << id << ": " << it->second.reason << "\n";
                continue;
            }
            if(static_cast<int>(running.size()) >= opt.jobs)
            {
                report(running.front());
                running.erase(running.begin());
            }
            running.push_back(start_case(opt, id, opt.data + "/" + folder + "/" + name,
                                         it == expected.end() ? nullptr : &it->second));
        }
        for(auto& j : running)
            report(j);
        std::cout << folder << ": " << c.passed << " passed, " << c.failed << " failed (" << c.xfail
                  << " expected), " << c.skipped << " skipped; " << c.fixed
                  << " of the passes fixed shape-deciding inputs as constants\n";
        total.passed += c.passed;
        total.failed += c.failed;
        total.skipped += c.skipped;
        total.xfail += c.xfail;
        total.fixed += c.fixed;
    }
    std::cout << "overall: " << total.passed << " passed, " << total.failed << " failed (" << total.xfail
              << " expected), " << total.skipped << " skipped; " << total.fixed
              << " of the passes fixed shape-deciding inputs as constants\n";
    if(opt.filter.empty())
        for(const auto& kv : expected)
            if(std::find(seen.begin(), seen.end(), kv.first) == seen.end() and
               std::any_of(opt.folders.begin(), opt.folders.end(),
                           [&](const auto& f) { return kv.first.rfind(f + "/", 0) == 0; }))
                std::cout << "warning: listed case " << kv.first << " does not exist\n";
    if(not opt.write_expected.empty())
    {
        std::ofstream f(opt.write_expected);
        f << "# ONNX conformance cases expected to fail on target '" << opt.target
          << "': <folder>/<case> <reason>\n";
        // New failures get their message as the reason; listed cases keep their written reason.
        std::map<std::string, std::string> all = failures;
        for(const auto& kv : expected)
        {
            bool listed_fail = kv.second.kind == expectation::fail;
            if(not listed_fail or failures.count(kv.first) > 0)
                all[kv.first] = kv.second.reason;
        }
        for(const auto& kv : all)
            f << kv.first << " " << kv.second.substr(0, 300) << "\n";
    }
    if(bad > 0)
        std::cout << bad << " unexpected result(s)\n";
    return bad > 0 ? 1 : 0;
}
