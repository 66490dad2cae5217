# mcm_rl_train: pre-training of the mcm_rl policy on random DAGs (seed 002 §4.3; sim/planners/mcm/rl).
add_executable(mcm_rl_train ${CMAKE_CURRENT_LIST_DIR}/mcm_rl_train.cpp)
target_link_libraries(mcm_rl_train PRIVATE partsim_cli partsim_mcm_rl partsim_workloads CLI11::CLI11
                                           nlohmann_json::nlohmann_json partsim_warnings)
