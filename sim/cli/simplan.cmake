# simplan: describes workloads (--describe, --list) and plans partitions (--strategy, added later).
add_executable(simplan ${CMAKE_CURRENT_LIST_DIR}/simplan.cpp)
target_link_libraries(simplan PRIVATE partsim_cli partsim_cli_inputs partsim_memory partsim_workloads partsim_strategies partsim_prediction_check partsim_plan partsim_collectives CLI11::CLI11 nlohmann_json::nlohmann_json
                                      partsim_warnings)
