# The defect campaign, the conformant variants and the false-fail smoke over the real case library
# (label `campaign`):
# campaign.fast proves every catalog defect is caught by a case that covers its clauses (exit 1
# below a 95% kill rate or with a case that does not PASS on the clean reference);
# variants.all runs every case against the default reference and every conformant variant of it
# (reference/variants.hpp) and fails on any false fail, MUST or SHOULD (the command itself exits 1
# only for a MUST one; the README has the many-seed run);
# falsefail.smoke reruns every statistical case on 20 seeds against reference-random (the reference
# with a seeded random EV choice, so counts really vary) and fails when a case FAILs more often
# than its declared alpha allows;
# campaign.reach runs the whole campaign by default and with --run-all (tests/harness/campaign/
# reach_identity.sh): no reach error, and the same reports to the byte, so the runs the default
# campaign leaves out (a defect its clean run never read) could not have changed anything.
# Reports land under <build>/campaign/.
if(TARGET mrc-conform)
  set(MRC_CAMPAIGN_DIR ${PROJECT_BINARY_DIR}/campaign)
  add_test(NAME campaign.fast
           COMMAND mrc-conform campaign --cases ${PROJECT_SOURCE_DIR}/cases --relevant-only
                   --min-kill-rate 0.95 --jobs 2 --no-progress --out ${MRC_CAMPAIGN_DIR}/fast
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  add_test(NAME falsefail.smoke
           COMMAND mrc-conform falsefail --cases ${PROJECT_SOURCE_DIR}/cases --seeds 20 --jobs 2 --dut reference-random
                   --no-progress --out ${MRC_CAMPAIGN_DIR}/falsefail
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  add_test(NAME variants.all
           COMMAND mrc-conform variants --cases ${PROJECT_SOURCE_DIR}/cases --jobs 2 --no-progress
                   --out ${MRC_CAMPAIGN_DIR}/variants
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  add_test(NAME campaign.reach
           COMMAND /bin/sh ${CMAKE_CURRENT_LIST_DIR}/reach_identity.sh $<TARGET_FILE:mrc-conform> ${PROJECT_SOURCE_DIR}
                   ${MRC_CAMPAIGN_DIR}/reach)
  set_tests_properties(variants.all PROPERTIES FAIL_REGULAR_EXPRESSION "[1-9][0-9]* false fails")
  set_tests_properties(campaign.fast falsefail.smoke variants.all campaign.reach PROPERTIES LABELS campaign TIMEOUT 1800
                       PROCESSORS 2)
else()
  message(WARNING "mrc-conform is not defined; campaign.fast, variants.all and falsefail.smoke are not registered")
endif()
