// bench_simdjson FILE: parses FILE with simdjson's DOM parser and prints how
// many events its traceEvents array holds.  The baseline of issue 20's Chrome
// row (tests/bench/speed.py): JSON parsing alone, at simdjson's speed, next to
// tracecat reading the same file into its model.  Built only when CMake finds
// the simdjson package (Debian libsimdjson-dev).
#include <simdjson.h>

#include <cstdio>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_simdjson FILE\n");
        return 2;
    }
    simdjson::padded_string json;
    auto err = simdjson::padded_string::load(argv[1]).get(json);
    if (err) {
        std::fprintf(stderr, "bench_simdjson: %s: %s\n", argv[1], simdjson::error_message(err));
        return 1;
    }
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if ((err = parser.parse(json).get(doc))) {
        std::fprintf(stderr, "bench_simdjson: %s: %s\n", argv[1], simdjson::error_message(err));
        return 1;
    }
    simdjson::dom::array events;
    size_t n = 0;
    if (!doc["traceEvents"].get(events)) n = events.size();
    std::printf("%zu events\n", n);
    return 0;
}
