# mcm_test_set: Random, SA and the constrained RL on an unseen test set of random DAGs (seed 002
# Fig. 5 / Table 2; sim/planners/mcm/rl).
add_executable(mcm_test_set ${CMAKE_CURRENT_LIST_DIR}/mcm_test_set.cpp)
target_link_libraries(mcm_test_set PRIVATE partsim_cli partsim_mcm_rl CLI11::CLI11 nlohmann_json::nlohmann_json
                                           partsim_warnings)
