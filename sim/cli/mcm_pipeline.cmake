# mcm_pipeline: analytical vs SimGrid-pipelined runtime of one mcm placement (seed 002 Fig. 7; sim/planners/mcm).
add_executable(mcm_pipeline ${CMAKE_CURRENT_LIST_DIR}/mcm_pipeline.cpp)
target_link_libraries(mcm_pipeline PRIVATE partsim_cli partsim_cli_inputs partsim_mcm_pipeline partsim_strategies partsim_replay partsim_plan
                                           partsim_workloads CLI11::CLI11 nlohmann_json::nlohmann_json partsim_warnings)
