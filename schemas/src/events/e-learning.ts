import { leftOutBy } from '../dsl/client';
import { opt, req, t, type EventDef } from '../dsl/types';

/** E-learning block events (spec 6, E-learning). */
// The Kenkai client sends each id under its model's name: question_id, exam_id, module_id.
const questionEvent: EventDef = {
  event: 'question',
  block: 'e_learning',
  name: 'QuestionProps',
  fields: {
    id: req(t.string, { client: { aliases: ['question_id'] } }),
    action: req(t.enum('question_action', ['answer', 'skip'], { extensions: ['other'] })),
    // Kenkai and causalfoundry/ios-sdk send no answer_id for skip (encodeIfPresent of nil).
    answer_id: req(t.string, {
      client: { mayOmit: leftOutBy(['ios-cf', 'ios-kenkai'], 'causalfoundry/ios-sdk and the Kenkai iOS client leave it out when there is no answer (skip)') },
    }),
    exam_id: req(t.string),
  },
};

/**
 * An exam step is reported as it happens: causalfoundry/ios-sdk, the Kenkai iOS client and the
 * synthetic data generator (a server-side import) send the result only with result and the duration
 * only with submit.
 */
const EXAM_RESULT_ONLY = 'causalfoundry/ios-sdk, the Kenkai iOS client and server-side imports send it only for result';
const EXAM_SUBMIT_ONLY = 'causalfoundry/ios-sdk, the Kenkai iOS client and server-side imports send it only for submit';

const examEvent: EventDef = {
  event: 'exam',
  block: 'e_learning',
  name: 'ExamProps',
  fields: {
    id: req(t.string, { client: { aliases: ['exam_id'] } }),
    action: req(t.enum('exam_action', ['start', 'submit', 'result'], { extensions: ['other'] })),
    // Kenkai's ExamObject has them optional, and causalfoundry/ios-sdk sends each only when it has one:
    // duration with submit, score and is_passed with result.
    is_passed: req(t.boolean, {
      client: { mayOmit: leftOutBy(['ios-cf', 'ios-kenkai', 'server-import'], EXAM_RESULT_ONLY) },
    }),
    score: req(t.float, {
      client: { mayOmit: leftOutBy(['ios-cf', 'ios-kenkai', 'server-import'], EXAM_RESULT_ONLY) },
    }),
    duration: req(t.int, {
      doc: 'seconds',
      min: 0,
      client: { mayOmit: leftOutBy(['ios-cf', 'ios-kenkai', 'server-import'], EXAM_SUBMIT_ONLY) },
    }),
  },
};

const moduleEvent: EventDef = {
  event: 'module',
  block: 'e_learning',
  name: 'ModuleProps',
  fields: {
    id: req(t.string, { client: { aliases: ['module_id'] } }),
    action: req(t.enum('module_action', ['view'], { extensions: ['other'] })),
    // Percent complete (iOS SDK docs: "the percentage complete for the module"; the data generator
    // sends 100 when a module is finished).
    progress: opt(t.int, { min: 0, max: 100 }),
  },
};

export const eLearningEvents: EventDef[] = [questionEvent, examEvent, moduleEvent];
