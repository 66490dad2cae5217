# simsweep: every point of a parameter sweep planned and replayed by simplan and simrun (child
# processes), spread over MPI ranks under mpirun/srun (partsim_sweep_mpi, the only MPI user).
# MPI comes first on the link line: libsimgrid (linked through the mcm strategies' pipelined replay)
# also exports MPI_Init & co. (SMPI), and the dynamic linker binds each symbol to the first library
# that defines it; partsim_sweep_mpi checks at start that it got the real MPI.
add_executable(simsweep ${CMAKE_CURRENT_LIST_DIR}/simsweep.cpp)
target_link_libraries(simsweep PRIVATE partsim_sweep_mpi partsim_cli partsim_cli_inputs partsim_sweep
                                       partsim_planner partsim_strategies partsim_workloads partsim_topology partsim_warnings)
