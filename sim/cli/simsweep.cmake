add_executable(simsweep ${CMAKE_CURRENT_LIST_DIR}/simsweep.cpp)
target_link_libraries(simsweep PRIVATE partsim_cli partsim_cli_inputs partsim_sweep nlohmann_json::nlohmann_json partsim_warnings)
