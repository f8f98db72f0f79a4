# The baseline postprocessing step of bench/streaming/headline.ts, written the way TensorRT-LLM's
# inflight_batcher_llm template (all_models/inflight_batcher_llm/postprocessing/1/model.py) does
# it: a Hugging Face tokenizer inside a Python-backend model decoding each beam's tokens up to
# its sequence length. Bench-only: the product has no Python.
import json

import numpy as np
import triton_python_backend_utils as pb_utils
from transformers import AutoTokenizer


class TritonPythonModel:
    def initialize(self, args):
        model_config = json.loads(args["model_config"])
        params = model_config["parameters"]
        tokenizer_dir = params["tokenizer_dir"]["string_value"]
        self.skip_special_tokens = params.get("skip_special_tokens", {}).get("string_value", "true").lower() in ("true", "1", "yes")
        self.tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir, legacy=False, padding_side="left", trust_remote_code=True)
        if not self.tokenizer.pad_token:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        output_config = pb_utils.get_output_config_by_name(model_config, "OUTPUT")
        self.output_dtype = pb_utils.triton_string_to_numpy(output_config["data_type"])

    def execute(self, requests):
        responses = []
        for request in requests:
            tokens_batch = pb_utils.get_input_tensor_by_name(request, "TOKENS_BATCH").as_numpy()
            sequence_lengths = pb_utils.get_input_tensor_by_name(request, "SEQUENCE_LENGTH").as_numpy()
            outputs = self._postprocessing(tokens_batch, sequence_lengths)
            output_tensor = pb_utils.Tensor("OUTPUT", np.array(outputs).astype(self.output_dtype))
            responses.append(pb_utils.InferenceResponse(output_tensors=[output_tensor]))
        return responses

    def _postprocessing(self, tokens_batch, sequence_lengths):
        outputs = []
        for batch_idx, beam_tokens in enumerate(tokens_batch):
            for beam_idx, tokens in enumerate(beam_tokens):
                seq_len = sequence_lengths[batch_idx][beam_idx]
                output = self.tokenizer.decode(tokens[:seq_len], skip_special_tokens=self.skip_special_tokens)
                outputs.append(output.encode("utf8"))
        return outputs

    def finalize(self):
        pass
