# A precompiled <torch/torch.h> for the translation units that parse LibTorch's headers anyway.
#
# Parsing those headers is most of a torch file's ~25 s; against the precompiled header it takes
# ~10 s. Loading that 0.7 GB header costs ~5 s, more than a file that includes only a few ATen
# headers (a tensor type, one op) spends parsing them, so only the files that include the whole
# API (<torch/torch.h>, its parts, <ATen/ATen.h>), directly or through one of our headers, use
# it; the others are marked SKIP_PRECOMPILE_HEADERS. The scan runs when CMake configures: a
# file that starts or stops including torch later still compiles correctly, only at the other
# speed until CMake runs again.

# Whether `includes` (#include lines) name LibTorch's whole API or one of `torch_headers` (a
# string of absolute paths, each followed by ';').
function(_strata_includes_torch includes torch_headers out)
  set(${out} FALSE PARENT_SCOPE)
  foreach(line IN LISTS includes)
    if(line MATCHES "^#include <(torch/(torch|all|serialize|script|nn|optim|data|csrc/)|ATen/ATen\\.h)")
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
    if(line MATCHES "^#include \"([^\"]+)\"")
      string(FIND "${torch_headers}" "/${CMAKE_MATCH_1};" at)
      if(at GREATER -1)
        set(${out} TRUE PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
endfunction()

# Every header of ours that includes LibTorch's whole API, directly or through others of ours, into
# STRATA_TORCH_HEADERS (a string of absolute paths, each followed by ';'; once per configure).
function(_strata_find_torch_headers)
  file(GLOB_RECURSE pending ${PROJECT_SOURCE_DIR}/core/*.h ${PROJECT_SOURCE_DIR}/app/*.h
    ${PROJECT_SOURCE_DIR}/views/*.h ${PROJECT_SOURCE_DIR}/tests/*.h)
  foreach(header IN LISTS pending)
    file(STRINGS ${header} includes_of_${header} REGEX "^#include [<\"]")
  endforeach()
  set(torch_headers ";")
  set(grew TRUE)
  while(grew)  # until no header joins: a header may include torch through one found later
    set(grew FALSE)
    set(still_pending "")
    foreach(header IN LISTS pending)
      _strata_includes_torch("${includes_of_${header}}" "${torch_headers}" found)
      if(found)
        string(APPEND torch_headers "${header};")
        set(grew TRUE)
      else()
        list(APPEND still_pending ${header})
      endif()
    endforeach()
    set(pending "${still_pending}")
  endwhile()
  set_property(GLOBAL PROPERTY STRATA_TORCH_HEADERS "${torch_headers}")
endfunction()

# Precompiles <torch/torch.h> for `target`'s torch files (STRATA_PRECOMPILE_TORCH).
function(strata_precompile_torch target)
  if(NOT STRATA_PRECOMPILE_TORCH)
    return()
  endif()
  get_property(torch_headers GLOBAL PROPERTY STRATA_TORCH_HEADERS)
  if(NOT torch_headers)
    _strata_find_torch_headers()
    get_property(torch_headers GLOBAL PROPERTY STRATA_TORCH_HEADERS)
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(torch_sources 0)
  set(light_sources "")
  foreach(source IN LISTS sources)
    if(NOT source MATCHES "\\.(cpp|cc|cxx)$")
      continue()
    endif()
    if(NOT IS_ABSOLUTE ${source})
      set(source ${source_dir}/${source})
    endif()
    file(STRINGS ${source} includes REGEX "^#include [<\"]")
    _strata_includes_torch("${includes}" "${torch_headers}" found)
    if(found)
      math(EXPR torch_sources "${torch_sources} + 1")
    else()
      list(APPEND light_sources ${source})
    endif()
  endforeach()
  # A target's precompiled header costs about one torch file to make: worth it from three on.
  if(torch_sources GREATER_EQUAL 3)
    set_property(SOURCE ${light_sources} TARGET_DIRECTORY ${target} PROPERTY
      SKIP_PRECOMPILE_HEADERS ON)
    target_precompile_headers(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:<torch/torch.h$<ANGLE-R>>")
  endif()
endfunction()
