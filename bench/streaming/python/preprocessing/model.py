# The baseline preprocessing step of bench/streaming/headline.ts, written the way TensorRT-LLM's
# inflight_batcher_llm template (all_models/inflight_batcher_llm/preprocessing/1/model.py) does
# it: a Hugging Face tokenizer loaded from `tokenizer_dir` inside a Python-backend model, one
# encode per query, ids padded to the batch's longest with the end id, output dtypes from the
# model config. Bench-only: the product has no Python.
import json

import numpy as np
import triton_python_backend_utils as pb_utils
from transformers import AutoTokenizer


class TritonPythonModel:
    def initialize(self, args):
        model_config = json.loads(args["model_config"])
        params = model_config["parameters"]
        tokenizer_dir = params["tokenizer_dir"]["string_value"]
        self.add_special_tokens = params.get("add_special_tokens", {}).get("string_value", "true").lower() in ("true", "1", "yes")
        self.tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir, legacy=False, padding_side="left", trust_remote_code=True)
        if not self.tokenizer.pad_token:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer_end_id = self.tokenizer.encode(self.tokenizer.eos_token, add_special_tokens=False)[0]
        self.tokenizer_pad_id = self.tokenizer.encode(self.tokenizer.pad_token, add_special_tokens=False)[0]
        self.dtypes = {}
        for name in ("INPUT_ID", "REQUEST_INPUT_LEN", "REQUEST_OUTPUT_LEN"):
            config = pb_utils.get_output_config_by_name(model_config, name)
            self.dtypes[name] = pb_utils.triton_string_to_numpy(config["data_type"])

    def execute(self, requests):
        responses = []
        for request in requests:
            query = pb_utils.get_input_tensor_by_name(request, "QUERY").as_numpy()
            request_output_len = pb_utils.get_input_tensor_by_name(request, "REQUEST_OUTPUT_LEN").as_numpy()
            input_id, request_input_len = self._create_request(query)
            responses.append(
                pb_utils.InferenceResponse(
                    output_tensors=[
                        pb_utils.Tensor("INPUT_ID", input_id.astype(self.dtypes["INPUT_ID"])),
                        pb_utils.Tensor("REQUEST_INPUT_LEN", request_input_len.astype(self.dtypes["REQUEST_INPUT_LEN"])),
                        pb_utils.Tensor("REQUEST_OUTPUT_LEN", request_output_len.astype(self.dtypes["REQUEST_OUTPUT_LEN"])),
                    ]
                )
            )
        return responses

    def _create_request(self, query):
        start_ids = [
            np.array(self.tokenizer.encode(s[0].decode(), add_special_tokens=self.add_special_tokens)).astype(int)
            for s in query
        ]
        start_lengths = np.array([[len(ids)] for ids in start_ids]).astype(int)
        max_len = max(len(ids) for ids in start_ids)
        start_ids = np.stack(
            [np.pad(ids, (0, max_len - len(ids)), "constant", constant_values=(0, self.tokenizer_end_id)) for ids in start_ids]
        )
        return start_ids, start_lengths

    def finalize(self):
        pass
