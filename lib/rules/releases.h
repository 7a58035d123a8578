/*
 * releases.h - the engine and Mooncake releases the rules follow
 * (doc/engine-contracts.md), named in the messages of the rules that
 * follow one of them: a refusal names the release that refuses, a warning
 * the releases that disagree. tests/tests.mk pins the same releases for
 * the contract tests (MCK_VLLM_VERSIONS, MCK_SGLANG_VERSIONS).
 */
#ifndef MCRI_RULES_RELEASES_H_
#define MCRI_RULES_RELEASES_H_

#define MCRI_VLLM_NEW "vLLM 0.34.0"
#define MCRI_VLLM_OLD "vLLM 0.33.0"
#define MCRI_SGLANG_NEW "SGLang 0.5.23"
#define MCRI_SGLANG_OLD "SGLang 0.5.22"
/* the Mooncake wheel the plugin runs (mooncake-transfer-engine-non-cuda;
 * its CUDA wheel has the same client) */
#define MCRI_MOONCAKE "Mooncake 0.3.13.post1"
/* the next release, on PyPI as the CUDA 13 wheel only */
#define MCRI_MOONCAKE_NEXT "Mooncake 0.3.14"
/* TensorRT-LLM's mooncake-store connector on main, where its contract was
 * read (doc/engine-contracts.md names the commit of each file) */
#define MCRI_TRTLLM "TensorRT-LLM's mooncake-store connector (main)"

#endif /* MCRI_RULES_RELEASES_H_ */
