# Runs mrc-ev on the worked-example profiles and the invalid ones and checks the exact output.
# usage: cmake -DMRC_EV=<mrc-ev> -DPROFILES=<dir> -P check_mrc_ev.cmake
if(NOT MRC_EV OR NOT PROFILES)
  message(FATAL_ERROR "set MRC_EV and PROFILES")
endif()

# expect_lines(<file> <line>...): exit 0 and every <line> appears as a whole output line.
function(expect_lines file)
  execute_process(COMMAND ${MRC_EV} ${PROFILES}/${file} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${file}: exit ${rc}, expected 0\n${err}")
    return()
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  foreach(want ${ARGN})
    list(FIND lines "${want}" at)
    if(at EQUAL -1)
      message(SEND_ERROR "${file}: missing line\n  ${want}\ngot:\n${out}")
    endif()
  endforeach()
endfunction()

# expect_error(<file> <regex>): exit 2 and stderr matches <regex>.
function(expect_error file regex)
  execute_process(COMMAND ${MRC_EV} ${PROFILES}/${file} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
  if(NOT rc EQUAL 2)
    message(SEND_ERROR "${file}: exit ${rc}, expected 2\n${out}${err}")
  elseif(NOT err MATCHES "${regex}")
    message(SEND_ERROR "${file}: stderr does not match ${regex}\n${err}")
  endif()
endfunction()

# Worked example 1: 33 12 -> 13 03 21 02.
expect_lines(example1.yaml "0 1 ev=3312 wire=13032102" "1 2 ev=ffff wire=1f0f2f0f")
# Worked example 2: outer DA 1313:1313:109:20b:307:409::
expect_lines(example2.yaml
  "0 1 ev=9b79 wire=131313130109020b03070409 da=1313:1313:109:20b:307:409::")
# Worked example 3: DA = cafecafe + 6 uSIDs, SRH segment = decafbad + 2 uSIDs + 8 zero bytes.
expect_lines(example3.yaml
  "0 1 ev=10012002300340045005600670078008 wire=cafecafe100120023003400450056006decafbad70078008 da=cafe:cafe:1001:2002:3003:4004:5005:6006 srh=deca:fbad:7007:8008::"
  "1 2 ev=00100021e009d0010000000000010002 wire=cafecafe00100021e009d00100000000decafbad00010002 da=cafe:cafe:10:21:e009:d001:: srh=deca:fbad:1:2::")
# Generated EVs are a pure function of the seed (splitmix64): pinned.
expect_lines(example2_generated.yaml
  "0 1 ev=da74 wire=13131313010d020a03070404 da=1313:1313:10d:20a:307:404::"
  "15 8 ev=d7b1 wire=13131313010d0207030b0401 da=1313:1313:10d:207:30b:401::")

expect_error(invalid_init_val.yaml
  "error: [^\n]*invalid_init_val.yaml:5:5: EINVAL \\(22\\): field 1 init_val 0x1FF does not fit width 8")
expect_error(invalid_too_many_fields.yaml
  "error: [^\n]*invalid_too_many_fields.yaml:4:3: E2BIG \\(7\\): field count 3 exceeds format field count 2 \\(k <= m\\)")
expect_error(invalid_trailing_bits.yaml
  "error: [^\n]*invalid_trailing_bits.yaml:8:5: EINVAL \\(22\\): [^\n]*EV bit 15 is set past the 8 bits")
expect_error(invalid_max_val.yaml
  "error: [^\n]*invalid_max_val.yaml:5:5: EINVAL \\(22\\): field 1 max_val 0x10 is not < 2\\^popcount")
expect_error(invalid_unknown_key.yaml
  "error: [^\n]*invalid_unknown_key.yaml:4:6: unknown key 'widht' in field")
expect_error(invalid_syntax.yaml "error: [^\n]*invalid_syntax.yaml:[0-9]+:[0-9]+: YAML syntax error: ")
expect_error(does_not_exist.yaml "error: [^\n]*does_not_exist.yaml: cannot open")
expect_error(invalid_huge_count.yaml
  "error: [^\n]*invalid_huge_count.yaml:4:8: count 4294967295 is over mrc-ev's limit of 1048576 EVs")
expect_error(invalid_huge_limits.yaml
  "error: [^\n]*invalid_huge_limits.yaml:5:24: ev_max_count 4294967295 is over mrc-ev's limit")
# A profile file over kMaxProfileBytes is refused before it is parsed.
set(big ${CMAKE_CURRENT_BINARY_DIR}/mrc_ev_oversized_profile.yaml)
string(REPEAT "# padding line of a profile file that is far too large to be a real EV profile\n" 14000 padding)
file(WRITE ${big} "${padding}")
execute_process(COMMAND ${MRC_EV} ${big} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "bytes is over mrc-ev's limit of 1048576 bytes")
  message(FATAL_ERROR "oversized profile: exit ${rc}, stderr: ${err}")
endif()
file(REMOVE ${big})

# Load-time errors are located and say what is wrong (never yaml-cpp's "invalid node" at 0:0).
expect_error(invalid_mode_map.yaml
  "error: [^\n]*invalid_mode_map.yaml:3:7: mode must be a scalar: explicit, generated or auto")
expect_error(invalid_ev_without_val.yaml
  "error: [^\n]*invalid_ev_without_val.yaml:8:5: missing key 'val' in ev")
expect_error(invalid_caps_map.yaml
  "error: [^\n]*invalid_caps_map.yaml:4:33: caps lists capability names")
# The checks every harness YAML gets (harness/case/yaml_lint.hpp).
expect_error(invalid_duplicate_key.yaml
  "error: [^\n]*invalid_duplicate_key.yaml:5:1: mode: duplicate key 'mode' \\(first at line 3, column 1\\)")
expect_error(invalid_tab_indent.yaml
  "error: [^\n]*invalid_tab_indent.yaml:7:1: YAML indentation must be spaces; a tab at 7:1")
expect_error(invalid_nul_byte.yaml
  "error: [^\n]*invalid_nul_byte.yaml:7:14: control character 0x00")
# Nesting: 100 levels (under yaml-cpp's own guard) is located at level 65; 10,000 and 100,000
# levels of lists or maps end in the same limit, without a crash.
function(expect_deep name text regex)
  set(f ${CMAKE_CURRENT_BINARY_DIR}/mrc_ev_${name}.yaml)
  file(WRITE ${f} "${text}")
  execute_process(COMMAND ${MRC_EV} ${f} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET TIMEOUT 30)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${regex}")
    message(SEND_ERROR "${name}: exit ${rc}, expected 2 and ${regex}; stderr: ${err}")
  endif()
  file(REMOVE ${f})
endfunction()
foreach(n 100 10000 100000)
  string(REPEAT "[" ${n} open)
  string(REPEAT "]" ${n} close)
  string(REPEAT "{a: " ${n} open_map)
  string(REPEAT "}" ${n} close_map)
  expect_deep(deep_list_${n} "mode: auto\ncount: 4\nx: ${open}${close}\n"
              "nested deeper than 64 levels of maps and lists \\(kMaxYamlDepth, harness/case/limits.hpp\\)")
  expect_deep(deep_map_${n} "mode: auto\ncount: 4\nx: ${open_map}1${close_map}\n"
              "nested deeper than 64 levels of maps and lists \\(kMaxYamlDepth")
endforeach()
string(REPEAT "[" 100 open)
string(REPEAT "]" 100 close)
expect_deep(deep_list_at_level_65 "mode: auto\ncount: 4\nx: ${open}${close}\n" "mrc_ev_deep_list_at_level_65.yaml:3:67: x(\\[0\\])+: nested deeper")
