// The translation unit that builds the test binaries' precompiled header (tests/CMakeLists.txt,
// partsim_test_pch): CMake compiles the header list of target_precompile_headers() for it, and every
// test target reuses that header. Nothing else is compiled here.
