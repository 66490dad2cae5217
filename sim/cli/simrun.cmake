# simrun: replays a plan (or one collective) on SimGrid and compares with the closed form and the prediction.
add_executable(simrun ${CMAKE_CURRENT_LIST_DIR}/simrun.cpp ${CMAKE_CURRENT_LIST_DIR}/simrun_chakra.cpp)
target_link_libraries(simrun PRIVATE partsim_cli partsim_cli_inputs partsim_replay partsim_lowering partsim_report partsim_export partsim_strategies
                                     partsim_planner partsim_plan partsim_program partsim_collectives partsim_topology
                                     partsim_workloads CLI11::CLI11 nlohmann_json::nlohmann_json partsim_warnings)
