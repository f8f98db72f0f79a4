/**
 * Text that synthetic prompts are cut from (GenAI-Perf cuts its prompts from Shakespeare's
 * sonnets the same way): ordinary English prose, so a tokenizer sees the word lengths, spacing
 * and punctuation of real prompts. Written for this project.
 */
export const CORPUS = `The lighthouse keeper rose before the sun, as he had every morning for thirty years, and climbed the
iron stairs with a lamp in one hand and a kettle in the other. From the gallery he could see the whole
bay: the fishing boats still tied in rows, the gulls asleep on the breakwater, the long grey line where
the sea became the sky. He wrote the weather in his book, wind from the west, visibility good, swell
moderate, and then he sat for a while and drank his tea and listened to the water.

In the village below, the baker had already lit her ovens. She worked by the light of a single bulb,
folding dough on a table worn smooth by her mother's hands and her grandmother's before that. The
first loaves went to the harbour, where the crews would come in hungry at nine; the second batch went
to the school; the rest she kept for the shop, which opened at seven whether anyone came or not.

Questions came to the keeper in the quiet hours. Why do some storms arrive without warning while others
announce themselves for days? How far can a light be seen on a clear night, and does the curve of the
earth or the brightness of the lamp decide it? He kept a second book for questions like these, and on
Sundays he walked to the library in town to look for answers, which he copied out in a careful hand.

The library was a small stone building with a red door. Its librarian, a patient man who had once been
a ship's engineer, kept the tide tables next to the poetry because, he said, both were about patterns
that repeat but never quite the same way. He could explain a diesel engine or a sonnet with equal care,
and children who came in for picture books often left with a map of the constellations instead.

By noon the boats were back. Nets were spread on the quay to dry, and the market filled with crates of
mackerel, crab and the small sweet prawns that only appeared in late summer. Prices were shouted, argued
over, agreed. A tourist asked whether the fish were fresh and was told, kindly, that they had been
swimming when she woke up. Everyone laughed, including the tourist, who bought two crabs and a recipe.

In the afternoon the wind turned. The keeper noticed it first in the flags, then in the colour of the
water, which went from blue to pewter in less than an hour. He checked the barometer, tapped it twice,
and wrote a number that made him frown. Then he went down to the radio room and called the harbour
master, who had noticed too, and together they decided to warn the boats that had gone out again.

Evening came early under the clouds. The lamp was lit at six; its beam swept the bay every twelve
seconds, white, white, then a long dark pause, the signature of this light and no other. Somewhere out
in the weather a skipper counted the seconds between flashes, knew exactly where he was, and turned for
home. That, the keeper thought, was the whole point: not to be admired, but to be counted on.
`;
