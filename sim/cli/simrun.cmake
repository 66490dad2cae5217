# simrun: runs one collective (or, later, a plan) on the SimGrid replay and compares with its closed form.
add_executable(simrun ${CMAKE_CURRENT_LIST_DIR}/simrun.cpp)
target_link_libraries(simrun PRIVATE partsim_cli partsim_replay partsim_collectives partsim_topology CLI11::CLI11
                                     nlohmann_json::nlohmann_json partsim_warnings)
